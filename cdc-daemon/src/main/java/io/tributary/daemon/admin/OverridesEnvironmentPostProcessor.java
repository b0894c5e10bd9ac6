package io.tributary.daemon.admin;

import io.tributary.daemon.config.CdcKeys;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;

/**
 * Puts the overrides file ({@code cdc.overrides.file}, default {@code tributary-overrides.properties} in the
 * working directory) in front of every other configuration source, so that live edits survive a restart.
 */
public class OverridesEnvironmentPostProcessor implements EnvironmentPostProcessor {

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Path file = overridesFile(environment);
        Map<String, Object> values = new LinkedHashMap<>(LiveConfig.readOverrides(file));
        if (!values.isEmpty()) {
            environment.getPropertySources().addFirst(new MapPropertySource("tributary-overrides " + file, values));
        }
    }

    /** {@code cdc.overrides.file}, or its default. */
    static Path overridesFile(Environment environment) {
        return Path.of(environment.getProperty(CdcKeys.OVERRIDES_FILE.name(), CdcKeys.OVERRIDES_FILE.defaultText()));
    }
}
