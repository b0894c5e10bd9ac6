package io.tributary.core.packet;

/**
 * The sequence id a connection expects next, shared by the {@link MySqlPacketDecoder} and the
 * {@link MySqlPacketEncoder} of one channel: every physical packet, in either direction, takes the
 * next id (mod 256). A new command resets it to 0.
 *
 * <p>Not thread-safe: it belongs to the channel's event loop.
 */
public final class PacketSequence {
    private int next;

    /** The id the next packet, read or written, must carry. */
    public int next() {
        return next;
    }

    /** Records that a packet with the expected id went by. */
    void advance() {
        next = (next + 1) & 0xFF;
    }

    /** Sets the id the next packet carries (0 at the start of a command). */
    public void reset(int sequenceId) {
        next = sequenceId & 0xFF;
    }

    @Override
    public String toString() {
        return "PacketSequence[next=" + next + "]";
    }
}
