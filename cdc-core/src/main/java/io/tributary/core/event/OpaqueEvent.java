package io.tributary.core.event;

/**
 * An event the decoder passes through without looking inside: LOAD-family events, TRANSACTION_CONTEXT,
 * VIEW_CHANGE, IGNORABLE, START_ENCRYPTION, MariaDB PARTIAL_ROW_DATA, and unknown types flagged
 * {@link EventHeader#LOG_EVENT_IGNORABLE_F} (vendor events such as Aurora's 100 or AliSQL's 80/101).
 * Its bytes are available from {@link BinlogEvent#rawBytes()}.
 */
public record OpaqueEvent() implements EventBody {
}
