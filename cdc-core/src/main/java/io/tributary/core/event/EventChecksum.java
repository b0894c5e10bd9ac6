package io.tributary.core.event;

import io.netty.buffer.ByteBuf;
import java.util.zip.CRC32;

/**
 * Feeds bytes of a Netty buffer to a binlog event's CRC32 without a new object per event: a heap buffer's array
 * directly, a contiguous direct buffer through its own reusable NIO view (read at once, on the calling thread), and
 * only a buffer made of several pieces (an event spread over packets) through a view of its own.
 */
public final class EventChecksum {

    private EventChecksum() {
    }

    /** Updates {@code crc} with {@code length} bytes of {@code buf} from {@code index}. */
    public static void update(CRC32 crc, ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.internalNioBuffer(index, length));
        } else {
            crc.update(buf.nioBuffer(index, length));
        }
    }
}
