package io.tributary.core.event;

/**
 * A body decoder found bytes that do not fit the event layout. Carries only WHAT was wrong;
 * {@link BinlogEventDecoder} adds the source, offset and event type when it turns this into a
 * {@link BinlogFormatException}.
 */
final class MalformedEventException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    MalformedEventException(String problem) {
        super(problem);
    }

    MalformedEventException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
