package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tributary.core.packet.ColumnDefinition;
import io.tributary.core.packet.ErrPacket;
import io.tributary.core.packet.MySqlPacketEncoder;
import io.tributary.core.packet.PacketSequence;
import io.tributary.core.packet.WireBuffers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChannelResultSinkTest {

    /** A physical packet as the client reads it. */
    private record Packet(int sequenceId, byte[] payload) {
    }

    /** A channel whose packet sequence expects 1 next, as after a client's COM_QUERY (sequence id 0). */
    private static EmbeddedChannel channel() {
        PacketSequence sequence = new PacketSequence();
        sequence.reset(1);
        return new EmbeddedChannel(new MySqlPacketEncoder(sequence));
    }

    private static List<Packet> written(EmbeddedChannel ch) {
        ch.runPendingTasks();
        ch.checkException();
        ByteBuf all = Unpooled.buffer();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            all.writeBytes(b);
            b.release();
        }
        List<Packet> out = new ArrayList<>();
        while (all.isReadable()) {
            int length = all.readUnsignedMediumLE();
            int seq = all.readUnsignedByte();
            byte[] payload = new byte[length];
            all.readBytes(payload);
            out.add(new Packet(seq, payload));
        }
        return out;
    }

    private static List<String> values(byte[] payload) {
        ByteBuf in = Unpooled.wrappedBuffer(payload);
        List<String> out = new ArrayList<>();
        while (in.isReadable()) {
            if ((in.getByte(in.readerIndex()) & 0xFF) == WireBuffers.LENENC_NULL) {
                in.readByte();
                out.add(null);
            } else {
                out.add(WireBuffers.readLenEncString(in, "value"));
            }
        }
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldWriteColumnsRowsAndEofAsConsecutivePacketsWithTheStatementsSequenceIds() {
        EmbeddedChannel ch = channel();
        ChannelResultSink sink = new ChannelResultSink(ch, 1, false, 2);
        sink.columns(List.of(ColumnDefinition.ofText("id"), ColumnDefinition.ofText("name")));
        int rows = 5000; // several 64 KB batches, sequence ids wrapping past 255
        for (int i = 0; i < rows; i++) {
            sink.row(new byte[][] {b(Integer.toString(i)), i % 7 == 0 ? null : b("name é " + "x".repeat(i % 50)), b("hidden")}, 2);
            // the event loop keeps up, as a live one does (EmbeddedChannel runs queued tasks re-entrantly on a write,
            // which a live event loop never does, so tasks are not left to pile up here)
            ch.runPendingTasks();
        }
        sink.end();
        List<Packet> packets = written(ch);
        assertThat(packets).hasSize(1 + 2 + 1 + rows + 1);
        for (int i = 0; i < packets.size(); i++) {
            assertThat(packets.get(i).sequenceId()).as("packet %d", i).isEqualTo((1 + i) & 0xFF);
        }
        for (int i = 0; i < rows; i++) {
            assertThat(values(packets.get(4 + i).payload())).as("row %d", i).containsExactly(Integer.toString(i),
                    i % 7 == 0 ? null : "name é " + "x".repeat(i % 50));
        }
        assertThat(packets.get(packets.size() - 1).payload()[0] & 0xFF).as("EOF").isEqualTo(0xFE);
        assertThat(sink.nextSequenceId()).isEqualTo((1 + packets.size()) & 0xFF);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void shouldEndRowsAlreadySentWithTheErrorPacket() {
        EmbeddedChannel ch = channel();
        ChannelResultSink sink = new ChannelResultSink(ch, 1, true, 2);
        sink.columns(List.of(ColumnDefinition.ofText("id")));
        sink.row(new byte[][] {b("1")}, 1);
        sink.error(new ErrPacket(1429, "HY000", "shard s1 (shop_01.orders_0002) failed"));
        List<Packet> packets = written(ch);
        assertThat(packets).hasSize(4);
        assertThat(values(packets.get(2).payload())).containsExactly("1");
        byte[] err = packets.get(3).payload();
        assertThat(err[0] & 0xFF).isEqualTo(0xFF);
        assertThat(new String(err, StandardCharsets.UTF_8)).contains("shard s1 (shop_01.orders_0002) failed");
        assertThat(packets.get(3).sequenceId()).isEqualTo(4);
    }
}
