package io.tributary.daemon.admin;

import io.tributary.daemon.config.CdcKeys;
import io.tributary.daemon.config.TributaryConfig;
import io.tributary.storage.buffer.PersistConfig;
import java.nio.file.Path;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Wiring of the live configuration and the admin endpoints on the management port. */
@Configuration(proxyBeanMethods = false)
public class AdminConfiguration {

    @Bean
    LiveConfig liveConfig(TributaryConfig config, Environment env) {
        Path overrides = OverridesEnvironmentPostProcessor.overridesFile(env);
        return new LiveConfig(PersistConfig.forThisJvm(), config.persist(), overrides);
    }

    @Bean
    FilterRegistrationBean<AdminAuthentication> adminAuthentication(Environment env) {
        String user = env.getProperty(CdcKeys.ADMIN_USER.name());
        String passwordEnv = env.getProperty(CdcKeys.ADMIN_PASSWORD_ENV.name());
        String password = passwordEnv != null ? System.getenv(passwordEnv) : env.getProperty(CdcKeys.ADMIN_PASSWORD.name());
        String off;
        if (user == null) {
            off = "admin endpoints are off: set " + CdcKeys.ADMIN_USER.name() + " and " + CdcKeys.ADMIN_PASSWORD.name()
                    + " (or " + CdcKeys.ADMIN_PASSWORD_ENV.name() + ") in the configuration and restart";
        } else if (passwordEnv != null) {
            off = "admin endpoints are off: " + CdcKeys.ADMIN_PASSWORD_ENV.name() + " names the environment variable "
                    + passwordEnv + ", which is not set for the daemon";
        } else {
            off = "admin endpoints are off: " + CdcKeys.ADMIN_USER.name() + " is set but has no password: set "
                    + CdcKeys.ADMIN_PASSWORD.name() + " (or " + CdcKeys.ADMIN_PASSWORD_ENV.name() + ") and restart";
        }
        FilterRegistrationBean<AdminAuthentication> bean = new FilterRegistrationBean<>(
                new AdminAuthentication(user, password, off));
        bean.addUrlPatterns("/admin/*");
        return bean;
    }
}
