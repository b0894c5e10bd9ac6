package io.tributary.core.packet;

import io.netty.buffer.ByteBuf;

/**
 * Physical packets already framed into one buffer (3-byte length, sequence id, payload, packet after packet), with
 * the sequence id of the first and the id the packet after the last must carry. The dump server frames a run of
 * binlog events this way, straight from the bytes it read, so the event loop writes one buffer per batch instead of
 * one packet object per event; the {@link MySqlPacketEncoder} passes the bytes on as they are and moves the
 * channel's {@link PacketSequence} past them.
 *
 * <p>Owns {@code bytes} (one reference) until written.
 *
 * @param bytes           the framed packets
 * @param firstSequenceId the sequence id of the first packet
 * @param nextSequenceId  the sequence id the next packet after these carries
 */
public record FramedPackets(ByteBuf bytes, int firstSequenceId, int nextSequenceId) {

    /**
     * Appends one payload made of {@code prefix} and {@code length} bytes of {@code src} from {@code offset} (a
     * binlog event sent as {@code 0x00 + event}) as physical packets starting at sequence id {@code sequenceId}:
     * one packet, or, from {@value MySqlProtocol#MAX_PACKET_PAYLOAD} bytes on, packets of that size followed by a
     * shorter one (empty when the size is an exact multiple), as {@link MySqlPacketEncoder} splits them.
     *
     * @return the sequence id after the last packet appended
     */
    public static int append(ByteBuf out, int sequenceId, byte prefix, byte[] src, int offset, int length) {
        int seq = sequenceId & 0xFF;
        long total = 1L + length;
        int chunk = (int) Math.min(total, MySqlProtocol.MAX_PACKET_PAYLOAD);
        out.ensureWritable(MySqlProtocol.PACKET_HEADER_BYTES + chunk);
        out.writeMediumLE(chunk).writeByte(seq).writeByte(prefix).writeBytes(src, offset, chunk - 1);
        seq = (seq + 1) & 0xFF;
        int at = offset + chunk - 1;
        long remaining = total - chunk;
        while (chunk == MySqlProtocol.MAX_PACKET_PAYLOAD) {
            chunk = (int) Math.min(remaining, MySqlProtocol.MAX_PACKET_PAYLOAD);
            out.ensureWritable(MySqlProtocol.PACKET_HEADER_BYTES + chunk);
            out.writeMediumLE(chunk).writeByte(seq).writeBytes(src, at, chunk);
            seq = (seq + 1) & 0xFF;
            at += chunk;
            remaining -= chunk;
        }
        return seq;
    }
}
