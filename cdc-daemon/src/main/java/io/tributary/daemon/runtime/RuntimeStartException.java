package io.tributary.daemon.runtime;

/** Tributary could not start: the message says which step failed and why. */
public final class RuntimeStartException extends RuntimeException {

    public RuntimeStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
