package io.tributary.daemon.config;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;

/**
 * Prints why the daemon did not start as one error: the analysis's description and what to do, without Spring's
 * "APPLICATION FAILED TO START" frame (whose reporter application.properties turns off) and without the stack
 * trace of a failure Tributary explains itself ({@link TributaryConfigFailureAnalyzer}).
 */
public class StartupFailureReporter implements FailureAnalysisReporter {

    private static final Logger log = LoggerFactory.getLogger(StartupFailureReporter.class);

    @Override
    public void report(FailureAnalysis analysis) {
        String action = analysis.getAction() == null || analysis.getAction().isBlank() ? ""
                : "\n" + analysis.getAction().strip();
        log.error("{}{}", analysis.getDescription().strip(), action);
    }
}
