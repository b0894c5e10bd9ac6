package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every event of the corpus leaves the heap as a {@link BinlogEventRecord} and comes back equal: header,
 * provenance (offset, inner offset, original type), raw bytes and decoded body. Covers payload-expanded
 * events (no checksum), MariaDB compressed events, pre-GA remapped types and events without checksums.
 */
class BinlogEventRecordTest {

    @TestFactory
    Stream<DynamicTest> everyCorpusEventRoundTrips() {
        return BinlogCorpus.perFile((dir, file) -> {
            String name = BinlogCorpus.relative(dir, file);
            return DynamicTest.dynamicTest(name, () -> {
                if (name.startsWith("malformed/")) {
                    return;
                }
                for (DecoderOptions options : List.of(DecoderOptions.FULL, DecoderOptions.HEADERS_ONLY)) {
                    BinlogEventDecoder d = new BinlogEventDecoder(name, BinlogCorpus.read(file), options);
                    List<BinlogEvent> events = new ArrayList<>();
                    try {
                        d.forEachRemaining(events::add);
                    } catch (BinlogFormatException trailing) {
                        // A few files end in a torn tail (SOURCES.md); the decodable prefix is what we round-trip.
                    }
                    assertThat(events).as("%s: events decoded", name).isNotEmpty();
                    int total = events.stream().mapToInt(BinlogEventRecord::sizeOf).sum();
                    ByteBuffer out = ByteBuffer.allocate(total);
                    events.forEach(e -> BinlogEventRecord.write(e, out));
                    assertThat(out.remaining()).isZero();
                    byte[] records = out.array();
                    int pos = 0;
                    for (BinlogEvent e : events) {
                        int length = BinlogEventRecord.recordLength(records, pos, total - pos, name);
                        BinlogEvent back = BinlogEventRecord.read(records, pos, length, d.formatDescription(), name);
                        assertThat(back).as("%s at %d", name, e.offset()).isEqualTo(e);
                        assertThat(back.rawBytes()).isEqualTo(e.rawBytes());
                        assertThat(back.originalTypeCode()).isEqualTo(e.originalTypeCode());
                        assertThat(back.checksumLength()).isEqualTo(e.checksumLength());
                        assertThat(String.valueOf(back.body())).as("body of %s at %d", name, e.offset())
                                .isEqualTo(String.valueOf(e.body()));
                        pos += length;
                    }
                    assertThat(pos).isEqualTo(total);
                }
            });
        });
    }

    @org.junit.jupiter.api.Test
    void aTruncatedRecordIsRefusedSayingWhere() {
        byte[] raw = new byte[30];
        raw[9] = 30;
        BinlogEvent e = new BinlogEvent(EventHeader.parse(raw, 0), 1234, -1, 0, raw, 0, 30, 0, null);
        ByteBuffer out = ByteBuffer.allocate(BinlogEventRecord.sizeOf(e));
        BinlogEventRecord.write(e, out);
        assertThatThrownBy(() -> BinlogEventRecord.recordLength(out.array(), 0, out.capacity() - 1, "spill chunk 7"))
                .hasMessage("spill chunk 7: bad event record at 0: declares 30 event bytes, 29 available (a header needs 19)");
        assertThatThrownBy(() -> BinlogEventRecord.recordLength(out.array(), 0, 10, "spill chunk 7"))
                .hasMessage("spill chunk 7: truncated event record at 0: 10 bytes left, the record header needs 20");
    }
}
