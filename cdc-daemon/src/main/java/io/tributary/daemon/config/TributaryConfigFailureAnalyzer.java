package io.tributary.daemon.config;

import io.tributary.core.config.ConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a refused configuration into the startup message a user reads: every problem, and what to do. */
public class TributaryConfigFailureAnalyzer extends AbstractFailureAnalyzer<ConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigurationException cause) {
        return new FailureAnalysis("Tributary refused to start. " + cause.listing(),
                "Fix the keys listed above in application.yml (or the overrides file / environment) and start again."
                        + " docs/configuration.md (and the comments of deploy/application.yml) document every key.",
                cause);
    }
}
