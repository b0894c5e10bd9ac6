package io.tributary.core.framing;

/**
 * An event the {@link TransactionFramer} cannot frame (its body is shorter than the fields framing reads), or an
 * event offered after that: says what was expected against what was found. The caller adds shard and position.
 */
public final class FramingException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    FramingException(String what) {
        super(what, null, false, false);
    }
}
