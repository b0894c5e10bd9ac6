package io.tributary.daemon.runtime;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A runtime that could not start (e.g. its binlog directory): the step and the reason, without the stack trace. */
public class RuntimeStartFailureAnalyzer extends AbstractFailureAnalyzer<RuntimeStartException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RuntimeStartException cause) {
        return new FailureAnalysis("Tributary could not start: " + cause.getMessage(),
                "The daemon's log above says more; fix the cause and start again.", cause);
    }
}
