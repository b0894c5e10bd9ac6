package io.tributary.core.packet;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramedPacketsTest {

    /** Framed by hand, the bytes are what the encoder writes for the same payloads as packets, split alike. */
    @Test
    void shouldFrameAsTheEncoderDoesIncludingSplitsAtTheMaximumPayload() {
        int[] sizes = {0, 1, 18, 8 * 1024, MySqlProtocol.MAX_PACKET_PAYLOAD - 1, MySqlProtocol.MAX_PACKET_PAYLOAD,
                MySqlProtocol.MAX_PACKET_PAYLOAD + 7, 2 * MySqlProtocol.MAX_PACKET_PAYLOAD - 1};
        for (int size : sizes) {
            byte[] event = new byte[size + 3];
            Arrays.fill(event, (byte) 0x5a);
            event[event.length - 1] = 1;
            ByteBuf framed = Unpooled.buffer();
            int next = FramedPackets.append(framed, 250, (byte) 0, event, 3, size);

            EmbeddedChannel viaEncoder = new EmbeddedChannel(new MySqlPacketEncoder(new PacketSequence()));
            ByteBuf payload = Unpooled.buffer().writeByte(0).writeBytes(event, 3, size);
            viaEncoder.writeOutbound(new MySqlPacket(0, payload));
            ByteBuf expected = Unpooled.buffer();
            for (ByteBuf b; (b = viaEncoder.readOutbound()) != null; b.release()) {
                expected.writeBytes(b);
            }
            for (int at = 0; at < expected.readableBytes(); ) { // the encoder started at 0: renumber from 250
                int length = expected.getUnsignedMediumLE(at);
                expected.setByte(at + 3, (expected.getByte(at + 3) + 250) & 0xff);
                at += 4 + length;
            }
            assertThat(ByteBuf.class.cast(framed)).as("payload of %d bytes", size + 1).isEqualTo(expected);
            int packets = (size + 1) / MySqlProtocol.MAX_PACKET_PAYLOAD + 1;
            assertThat(next).isEqualTo((250 + packets) & 0xff);
        }
    }

    /** The encoder passes framed packets on as they are and expects the id after them next. */
    @Test
    void shouldPassFramedPacketsAndMoveTheSequencePastThem() {
        PacketSequence sequence = new PacketSequence();
        sequence.reset(3);
        EmbeddedChannel channel = new EmbeddedChannel(new MySqlPacketEncoder(sequence));
        ByteBuf framed = Unpooled.buffer();
        int next = FramedPackets.append(framed, 3, (byte) 0, new byte[] {1, 2, 3}, 0, 3);
        next = FramedPackets.append(framed, next, (byte) 0, new byte[] {4}, 0, 1);
        channel.writeOutbound(new FramedPackets(framed.retainedDuplicate(), 3, next));
        ByteBuf out = channel.readOutbound();
        assertThat(out).isEqualTo(framed);
        assertThat(sequence.next()).isEqualTo(5);
        channel.writeOutbound(new MySqlPacket(5, Unpooled.wrappedBuffer(new byte[] {(byte) 0xfe})));
        ByteBuf eof = channel.readOutbound();
        assertThat(eof.getByte(3)).isEqualTo((byte) 5);
        out.release();
        eof.release();
        framed.release();
    }
}
