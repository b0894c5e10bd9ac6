package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * A message carried in one MySQL packet payload. Each implementation has a static
 * {@code decode(ByteBuf payload)} that reads exactly what {@link #encode(ByteBuf)} writes.
 */
public interface MySqlMessage {

    /** Appends this message's payload (no packet header) to {@code out}. */
    void encode(ByteBuf out);

    /** This message as a packet with the given sequence id. */
    default MySqlPacket toPacket(ByteBufAllocator alloc, int sequenceId) {
        ByteBuf payload = alloc.buffer();
        try {
            encode(payload);
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
        return new MySqlPacket(sequenceId, payload);
    }
}
