package io.tributary.core.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MySqlPacketCodecTest {
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    private EmbeddedChannel decoderChannel(MySqlPacketDecoder.Role role, PacketSequence seq, int max) {
        EmbeddedChannel ch = new EmbeddedChannel(new MySqlPacketDecoder(role, seq, max));
        channels.add(ch);
        return ch;
    }

    private EmbeddedChannel encoderChannel(PacketSequence seq) {
        EmbeddedChannel ch = new EmbeddedChannel(new MySqlPacketEncoder(seq));
        channels.add(ch);
        return ch;
    }

    @AfterEach
    void nothingLeftOver() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
            assertThat(ch.inboundMessages()).isEmpty();
            assertThat(ch.outboundMessages()).isEmpty();
        }
    }

    /** Concatenates everything the encoder wrote. */
    private static ByteBuf drain(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        return all;
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void shouldSplitPayloadsOver16MbIntoConsecutiveSequenceIdsAndReassembleThem() {
        int length = 2 * MySqlProtocol.MAX_PACKET_PAYLOAD + 1000;
        byte[] payload = randomBytes(length, 42);
        PacketSequence out = new PacketSequence();
        EmbeddedChannel enc = encoderChannel(out);
        enc.writeOutbound(new MySqlPacket(0, Unpooled.wrappedBuffer(payload)));
        ByteBuf wire = drain(enc);
        assertThat(wire.readableBytes()).isEqualTo(length + 3 * 4);
        assertThat(wire.getUnsignedMediumLE(0)).isEqualTo(0xFFFFFF);
        assertThat(wire.getUnsignedByte(3)).isEqualTo((short) 0);
        assertThat(wire.getUnsignedByte(4 + 0xFFFFFF + 3)).isEqualTo((short) 1);
        int third = 2 * (4 + 0xFFFFFF);
        assertThat(wire.getUnsignedMediumLE(third)).isEqualTo(1000);
        assertThat(wire.getUnsignedByte(third + 3)).isEqualTo((short) 2);
        assertThat(out.next()).isEqualTo(3);

        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.SERVER, new PacketSequence(), Integer.MAX_VALUE);
        // arrive in uneven pieces, as TCP delivers them
        while (wire.isReadable()) {
            dec.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), 3_000_001)));
        }
        wire.release();
        MySqlPacket p = dec.readInbound();
        try {
            assertThat(p.sequenceId()).isZero();
            byte[] got = new byte[p.payload().readableBytes()];
            p.payload().readBytes(got);
            assertThat(got).isEqualTo(payload);
        } finally {
            p.release();
        }
    }

    @Test
    void shouldEndAPayloadOfExactly16MbWithAnEmptyPacket() {
        byte[] payload = randomBytes(MySqlProtocol.MAX_PACKET_PAYLOAD, 7);
        EmbeddedChannel enc = encoderChannel(new PacketSequence());
        enc.writeOutbound(new MySqlPacket(0, Unpooled.wrappedBuffer(payload)));
        ByteBuf wire = drain(enc);
        assertThat(wire.readableBytes()).isEqualTo(payload.length + 8);
        assertThat(wire.getUnsignedMediumLE(4 + payload.length)).isZero();
        assertThat(wire.getUnsignedByte(4 + payload.length + 3)).isEqualTo((short) 1);

        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.CLIENT, new PacketSequence(), Integer.MAX_VALUE);
        dec.writeInbound(wire);
        MySqlPacket p = dec.readInbound();
        assertThat(p.payload().readableBytes()).isEqualTo(payload.length);
        p.release();
    }

    @Test
    void shouldRejectAPacketOutOfSequenceAndDiscardTheRest() {
        PacketSequence seq = new PacketSequence();
        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.CLIENT, seq, 1024);
        dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("0100000000")));
        MySqlPacket first = dec.readInbound();
        assertThat(first.sequenceId()).isZero();
        first.release();
        assertThatThrownBy(() -> dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("01000005ff"))))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("packet out of order: expected sequence id 1, found 5 (payload length 1)")
                .satisfies(e -> assertThat(((MySqlProtocolException) e).error()).isEqualTo(MySqlError.ER_NET_PACKETS_OUT_OF_ORDER));
        // terminal state: a valid packet afterwards is discarded, not decoded
        dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("0100000100")));
        assertThat(dec.inboundMessages()).isEmpty();
    }

    @Test
    void shouldNameTheContinuationPacketThatIsOutOfSequence() {
        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.CLIENT, new PacketSequence(), Integer.MAX_VALUE);
        ByteBuf wire = Unpooled.buffer();
        wire.writeMediumLE(0xFFFFFF).writeByte(0).writeZero(0xFFFFFF);
        wire.writeMediumLE(3).writeByte(7).writeZero(3);
        assertThatThrownBy(() -> dec.writeInbound(wire))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("packet out of order: expected sequence id 1, found 7 in continuation packet 2 of a split payload (payload length 3)");
    }

    @Test
    void shouldStartANewCommandAtSequenceZeroOnTheServerSide() {
        PacketSequence seq = new PacketSequence();
        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.SERVER, seq, 1024);
        dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("010000000e" + "010000000e")));
        for (int i = 0; i < 2; i++) {
            MySqlPacket p = dec.readInbound();
            assertThat(ComPing.decode(p.payload())).isEqualTo(new ComPing());
            p.release();
        }
        assertThat(seq.next()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAnOversizedPayloadBeforeBufferingIt() {
        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.CLIENT, new PacketSequence(), 100);
        assertThatThrownBy(() -> dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("e8030000"))))
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("packet too large: payload of at least 1000 bytes exceeds the limit of 100 bytes (sequence id 0)");
    }

    @Test
    void shouldReportAConnectionClosedInsideAPayload() {
        EmbeddedChannel dec = decoderChannel(MySqlPacketDecoder.Role.CLIENT, new PacketSequence(), 1024);
        dec.writeInbound(Unpooled.wrappedBuffer(HexFormat.of().parseHex("0a000000010203")));
        assertThatThrownBy(dec::finish)
                .isInstanceOf(MySqlProtocolException.class)
                .hasMessage("connection closed in the middle of a packet payload (10 bytes announced, 3 received)");
    }

    @Test
    void shouldRefuseToWriteOutOfSequence() {
        PacketSequence seq = new PacketSequence();
        seq.reset(2);
        EmbeddedChannel enc = encoderChannel(seq);
        assertThatThrownBy(() -> enc.writeOutbound(new MySqlPacket(5, Unpooled.wrappedBuffer(new byte[] {1}))))
                .hasMessageContaining("refusing to write a packet out of order: sequence id 5, expected 2 or 0");
    }

    @Test
    void shouldCarryAFullConversationThroughEncoderAndDecoderOnBothSides() {
        // client and server each own a sequence; the server greets, the client answers, the server says OK
        PacketSequence clientSeq = new PacketSequence();
        PacketSequence serverSeq = new PacketSequence();
        EmbeddedChannel server = new EmbeddedChannel(new MySqlPacketDecoder(MySqlPacketDecoder.Role.SERVER, serverSeq),
                new MySqlPacketEncoder(serverSeq));
        EmbeddedChannel client = new EmbeddedChannel(new MySqlPacketDecoder(MySqlPacketDecoder.Role.CLIENT, clientSeq),
                new MySqlPacketEncoder(clientSeq));
        channels.add(server);
        channels.add(client);
        HandshakeV10 hello = new HandshakeV10(10, "8.0.36-tributary", 7, randomBytes(20, 1), 0xFFFF_F7FF, 45, 2,
                MySqlProtocol.MYSQL_NATIVE_PASSWORD);
        server.writeOutbound(hello.toPacket(server.alloc(), 0));
        client.writeInbound(drain(server));
        MySqlPacket greeting = client.readInbound();
        assertThat(HandshakeV10.decode(greeting.payload())).usingRecursiveComparison().isEqualTo(hello);
        greeting.release();

        client.writeOutbound(new ComQuery("SELECT 1").toPacket(client.alloc(), 0));
        server.writeInbound(drain(client));
        MySqlPacket query = server.readInbound();
        assertThat(ComQuery.decode(query.payload())).isEqualTo(new ComQuery("SELECT 1"));
        query.release();
        server.writeOutbound(OkPacket.EMPTY.toPacket(server.alloc(), serverSeq.next()));
        client.writeInbound(drain(server));
        MySqlPacket ok = client.readInbound();
        assertThat(ok.sequenceId()).isEqualTo(1);
        assertThat(OkPacket.decode(ok.payload())).isEqualTo(OkPacket.EMPTY);
        ok.release();
    }

    @Test
    void shouldStopAfterAnSslRequestAndHandOverTheTlsBytesThatFollowInTheSameRead() {
        PacketSequence sequence = new PacketSequence();
        sequence.advance(); // the server's greeting went out with id 0
        MySqlPacketDecoder decoder = new MySqlPacketDecoder(MySqlPacketDecoder.Role.SERVER, sequence, 1 << 20);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        channels.add(ch);
        ByteBuf in = Unpooled.buffer();
        in.writeMediumLE(SslRequest.LENGTH).writeByte(1);
        in.writeIntLE(MySqlProtocol.CLIENT_SSL | MySqlProtocol.CLIENT_PROTOCOL_41).writeIntLE(1 << 24).writeByte(45)
                .writeZero(23);
        byte[] clientHello = {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5};
        in.writeBytes(clientHello);
        ch.writeInbound(in);

        MySqlPacket request = ch.readInbound();
        assertThat(request.sequenceId()).isEqualTo(1);
        assertThat(request.payload().readableBytes()).isEqualTo(SslRequest.LENGTH);
        request.release();
        assertThat((Object) ch.readInbound()).as("the TLS bytes are not read as a MySQL packet").isNull();
        ByteBuf rest = decoder.takeBytesAfterSslRequest();
        assertThat(ByteBufUtilBytes.of(rest)).isEqualTo(clientHello);
        rest.release();
        assertThat(decoder.takeBytesAfterSslRequest().isReadable()).as("handed over once").isFalse();
    }

    /** Bytes of a buffer, without moving its reader index. */
    private static final class ByteBufUtilBytes {
        static byte[] of(ByteBuf b) {
            return io.netty.buffer.ByteBufUtil.getBytes(b);
        }
    }
}
