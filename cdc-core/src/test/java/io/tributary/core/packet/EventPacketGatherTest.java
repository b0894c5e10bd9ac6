package io.tributary.core.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EventPacketGatherTest {

    /**
     * Gathered around slices, a run of events of every size (copied and sliced, split at the maximum payload, an
     * exact multiple of it) is the byte stream {@link FramedPackets#append} frames by copying, with the same
     * sequence ids; and once the packets are released, no buffer stays held.
     */
    @Test
    void shouldGiveTheBytesThatCopyingGivesAndHoldNothingAfterwards() {
        int max = MySqlProtocol.MAX_PACKET_PAYLOAD;
        int[] sizes = {19, 31, EventPacketGather.COPY_BELOW - 1, EventPacketGather.COPY_BELOW, 9_000, 70_000, 40, 3,
                max - 1, max, max + 7, 2 * max - 1, 19};
        Random random = new Random(7);
        ByteBuf source = PooledByteBufAllocator.DEFAULT.directBuffer();
        List<int[]> events = new ArrayList<>();
        for (int size : sizes) {
            byte[] event = new byte[size];
            random.nextBytes(event);
            events.add(new int[] {source.writerIndex() + 5, size});
            source.writeZero(5).writeBytes(event);
        }
        ByteBuf expected = Unpooled.buffer();
        int expectedNext = 250;
        EventPacketGather gather = new EventPacketGather(PooledByteBufAllocator.DEFAULT, 250);
        for (int[] e : events) {
            byte[] copy = new byte[e[1]];
            source.getBytes(e[0], copy);
            expectedNext = FramedPackets.append(expected, expectedNext, (byte) 0, copy, 0, copy.length);
            gather.add(source, e[0], e[1]);
        }
        FramedPackets packets = gather.finish();
        source.release(); // the slices keep what they need

        assertThat(packets.firstSequenceId()).isEqualTo(250);
        assertThat(packets.nextSequenceId()).isEqualTo(expectedNext);
        assertThat(gather.events()).isEqualTo(sizes.length);
        assertThat(ByteBuf.class.cast(packets.bytes())).isEqualTo(expected);
        assertThat(packets.bytes().release()).as("the last reference: every slice and scratch buffer is freed").isTrue();
        assertThat(source.refCnt()).isZero();
    }

    /** A format description copied, then changed in place, is sent as changed; nothing added gives no packets. */
    @Test
    void shouldSendACopiedEventAsChangedAndNothingForNoEvents() {
        ByteBuf fde = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        EventPacketGather gather = new EventPacketGather(UnpooledByteBufAllocator.DEFAULT, 0);
        int at = gather.addCopy(fde, 1, 3);
        gather.scratch().setByte(at, 9);
        FramedPackets packets = gather.finish();
        assertThat(ByteBuf.class.cast(packets.bytes())).isEqualTo(
                Unpooled.wrappedBuffer(new byte[] {4, 0, 0, 0, 0, 9, 3, 4}));
        assertThat(fde.getByte(1)).as("the source is not changed").isEqualTo((byte) 2);
        packets.bytes().release();

        assertThat(new EventPacketGather(UnpooledByteBufAllocator.DEFAULT, 5).finish()).isNull();
        EventPacketGather tooLarge = new EventPacketGather(UnpooledByteBufAllocator.DEFAULT, 0);
        assertThatThrownBy(() -> tooLarge.addCopy(Unpooled.buffer(), 0, MySqlProtocol.MAX_PACKET_PAYLOAD))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too large to be copied");
        tooLarge.discard();
    }
}
