package io.tributary.core.event;

/**
 * Bad binlog bytes: a truncated or oversized event, a checksum mismatch, an unknown non-ignorable event
 * type, a field that runs past its event, a refused decompression.
 *
 * <p>The message always reads {@code "<source> at offset <n> [<TYPE>(<code>) event]: <problem>"}, where the
 * problem states expected against found, e.g. {@code "mysql-bin.000001 at offset 1024 [QUERY(2) event]:
 * checksum mismatch: stored 0x1a2b3c4d, computed 0x5e6f7a8b"}. Events expanded from a
 * TRANSACTION_PAYLOAD name the payload event's offset and the inner offset.
 */
public final class BinlogFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String sourceName;
    private final long offset;
    private final String eventType;
    private final String problem;

    /**
     * @param sourceName what the bytes came from (file name, shard and position), as the caller named it
     * @param offset     offset of the event (or of the bad bytes) in the source
     * @param eventType  type name of the event, or {@code null} when the header could not be read
     * @param problem    what was wrong, with expected and found values
     */
    public BinlogFormatException(String sourceName, long offset, String eventType, String problem, Throwable cause) {
        super(sourceName + " at offset " + offset + (eventType == null ? "" : " [" + eventType + " event]") + ": "
                + problem, cause);
        this.sourceName = sourceName;
        this.offset = offset;
        this.eventType = eventType;
        this.problem = problem;
    }

    public String sourceName() {
        return sourceName;
    }

    public long offset() {
        return offset;
    }

    /** The event type name (e.g. {@code "QUERY(2)"}), or {@code null} when no header was read. */
    public String eventType() {
        return eventType;
    }

    public String problem() {
        return problem;
    }
}
