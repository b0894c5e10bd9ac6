package io.tributary.core.event;

/**
 * The decoded body of one binlog event. Each event family has its own immutable record; events the
 * pipeline does not need to look into are {@link OpaqueEvent}s and stay available as raw bytes through
 * {@link BinlogEvent}.
 */
public interface EventBody {
}
