package io.tributary.daemon.config;

import io.tributary.core.config.ConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a refused configuration into the startup message a user reads: every problem of the configuration and of
 * the shards, and what to do. {@link StartupFailureReporter} prints it.
 */
public class TributaryConfigFailureAnalyzer extends AbstractFailureAnalyzer<ConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigurationException cause) {
        return new FailureAnalysis("Tributary refused to start. " + cause.listing(),
                "Fix what is listed above (the keys in application.yml, the overrides file or the environment; the"
                        + " shards' settings) and start again. docs/configuration.md (and the comments of"
                        + " deploy/application.yml) document every key.",
                cause);
    }
}
