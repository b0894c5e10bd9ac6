package io.tributary.core.event.rows;

/**
 * A row image (or a value inside it) that cannot be decoded: truncated, longer than its event, or holding
 * an impossible value. The message names the table and column where known, the offset inside the rows
 * body, and what was expected against what was found.
 */
public final class RowDecodeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RowDecodeException(String message) {
        super(message);
    }

    public RowDecodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
