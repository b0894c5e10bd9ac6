package io.tributary.core.event;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * Feeds bytes of a Netty buffer to a binlog event's CRC32 without a new object per event: a heap buffer's array
 * directly, a contiguous direct buffer through its own reusable NIO view (read at once, on the calling thread), and
 * only a buffer made of several pieces (an event spread over packets) through a view of its own.
 *
 * <p>A slice has no reusable view of its own (Netty makes a new one at each call): events sliced out of one read
 * buffer go through {@link SliceViews}, one view per buffer they were sliced from.
 */
public final class EventChecksum {

    private EventChecksum() {
    }

    /**
     * CRC32 over slices of direct buffers through one NIO view per buffer sliced from, made when a slice of another
     * buffer comes: a shard reader's events are slices of the buffer a socket read filled, hundreds to a read, and a
     * view per event was a tenth of what its thread allocated. The view is this object's own (made with
     * {@code nioBuffer}, not the parent's shared "internal" one), so another thread reading the same parent never
     * sees its position move. Where a slice is found inside its parent by memory address; anything else (heap, a
     * buffer of several pieces, no address) goes through {@link #update(CRC32, ByteBuf, int, int)}. One thread's.
     */
    public static final class SliceViews {
        private ByteBuf parent;
        private long parentAddress;
        /** A view of all of {@link #parent} (its capacity when the view was made is the view's). */
        private ByteBuffer view;

        /** Updates {@code crc} with {@code length} bytes of {@code buf} from {@code index}. */
        public void update(CRC32 crc, ByteBuf buf, int index, int length) {
            ByteBuf p = buf.hasMemoryAddress() && buf.nioBufferCount() == 1 ? buf.unwrap() : null;
            if (p == null || !p.hasMemoryAddress() || p.nioBufferCount() != 1) {
                EventChecksum.update(crc, buf, index, length);
                return;
            }
            long address = p.memoryAddress();
            int capacity = p.capacity();
            if (p != parent || address != parentAddress || capacity != view.capacity()) {
                view = p.nioBuffer(0, capacity);
                parent = p;
                parentAddress = address;
            }
            long at = buf.memoryAddress() + index - address;
            if (at < 0 || at + length > capacity) {
                EventChecksum.update(crc, buf, index, length);
                return;
            }
            view.limit(capacity).position((int) at).limit((int) at + length);
            crc.update(view);
        }
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
