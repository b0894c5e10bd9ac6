package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link EventChecksum}: the CRC of any range of any buffer a reader can hold (slices of slices of read buffers from
 * each allocator, heap, composite) is the CRC of the same bytes copied out, also when the buffers slices come from
 * change, come back, or are released and their memory given to the next one.
 */
class EventChecksumTest {

    private static long expected(ByteBuf buf, int index, int length) {
        byte[] copy = new byte[length];
        buf.getBytes(index, copy);
        CRC32 c = new CRC32();
        c.update(copy);
        return c.getValue();
    }

    private static ByteBufAllocator allocator(String name) {
        return switch (name) {
            case "adaptive" -> new AdaptiveByteBufAllocator(true, false);
            case "pooled" -> new PooledByteBufAllocator(true);
            case "unpooled" -> new UnpooledByteBufAllocator(true);
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"adaptive", "pooled", "unpooled"})
    void slicesOfReadBuffersChecksumAsTheirBytes(String name) {
        ByteBufAllocator alloc = allocator(name);
        Random random = new Random(42);
        EventChecksum.SliceViews views = new EventChecksum.SliceViews();
        CRC32 crc = new CRC32();
        List<ByteBuf> reads = new ArrayList<>();
        for (int r = 0; r < 40; r++) {
            ByteBuf read = alloc.directBuffer(1 + random.nextInt(70_000));
            byte[] bytes = new byte[read.capacity()];
            random.nextBytes(bytes);
            read.writeBytes(bytes);
            reads.add(read);
        }
        for (int i = 0; i < 4000; i++) {
            // events of one read follow each other, then another read's, sometimes one seen before
            ByteBuf read = reads.get(random.nextInt(100) < 90 ? i / 100 % reads.size() : random.nextInt(reads.size()));
            int from = random.nextInt(read.readableBytes());
            ByteBuf packet = read.slice(from, read.readableBytes() - from);
            int at = random.nextInt(packet.readableBytes());
            ByteBuf event = random.nextBoolean() ? packet.slice(at, packet.readableBytes() - at) : packet;
            int index = event.readerIndex() + random.nextInt(event.readableBytes());
            int length = random.nextInt(event.readerIndex() + event.readableBytes() - index + 1);
            crc.reset();
            views.update(crc, event, index, length);
            assertThat(crc.getValue()).as("%s: %d bytes at %d of a slice", name, length, index)
                    .isEqualTo(expected(event, index, length));
        }
        reads.forEach(ByteBuf::release);
    }

    @ParameterizedTest
    @ValueSource(strings = {"adaptive", "pooled"})
    void aReadBufferReleasedAndItsMemoryReusedIsReadAsItsNewBytes(String name) {
        ByteBufAllocator alloc = allocator(name);
        Random random = new Random(7);
        EventChecksum.SliceViews views = new EventChecksum.SliceViews();
        CRC32 crc = new CRC32();
        for (int round = 0; round < 200; round++) {
            ByteBuf read = alloc.directBuffer(4096 + random.nextInt(4096));
            byte[] bytes = new byte[read.capacity()];
            random.nextBytes(bytes);
            read.writeBytes(bytes);
            ByteBuf event = read.slice(100, 1000);
            crc.reset();
            views.update(crc, event, 10, 900);
            assertThat(crc.getValue()).as("round %d", round).isEqualTo(expected(event, 10, 900));
            read.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"heap", "composite", "wrapped"})
    void otherBuffersGoTheGeneralWay(String kind) {
        Random random = new Random(3);
        byte[] bytes = new byte[10_000];
        random.nextBytes(bytes);
        ByteBuf buf = switch (kind) {
            case "heap" -> Unpooled.wrappedBuffer(bytes).slice(5, 9000);
            case "wrapped" -> Unpooled.directBuffer(10_000).writeBytes(bytes).slice(5, 9000);
            default -> {
                CompositeByteBuf c = Unpooled.compositeBuffer();
                c.addComponent(true, Unpooled.directBuffer(6000).writeBytes(bytes, 0, 6000));
                c.addComponent(true, Unpooled.directBuffer(4000).writeBytes(bytes, 6000, 4000));
                yield c.slice(5, 9000);
            }
        };
        EventChecksum.SliceViews views = new EventChecksum.SliceViews();
        CRC32 crc = new CRC32();
        try {
            for (int i = 0; i < 200; i++) {
                int index = random.nextInt(9000);
                int length = random.nextInt(9000 - index + 1);
                crc.reset();
                views.update(crc, buf, index, length);
                assertThat(crc.getValue()).isEqualTo(expected(buf, index, length));
            }
        } finally {
            buf.release(); // the slice shares its buffer's count: the direct buffers are freed, not left to a leak report
        }
    }
}
