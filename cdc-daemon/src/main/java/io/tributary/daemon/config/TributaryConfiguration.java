package io.tributary.daemon.config;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Wiring of the configuration: the validated {@link TributaryConfig} every other component starts from. The shards
 * are checked ({@link ShardCheck}, when the preflight is on) in the same pass, so one refusal lists everything.
 */
@Configuration(proxyBeanMethods = false)
public class TributaryConfiguration {

    @Bean
    TributaryConfig tributaryConfig(ConfigurableEnvironment environment, ObjectProvider<ShardCheck> shardCheck) {
        return new TributaryConfigLoader(environment).load(shardCheck.getIfAvailable());
    }
}
