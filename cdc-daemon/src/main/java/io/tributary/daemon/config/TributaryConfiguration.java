package io.tributary.daemon.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/** Wiring of the configuration: the validated {@link TributaryConfig} every other component starts from. */
@Configuration(proxyBeanMethods = false)
public class TributaryConfiguration {

    @Bean
    TributaryConfig tributaryConfig(ConfigurableEnvironment environment) {
        return new TributaryConfigLoader(environment).load();
    }
}
