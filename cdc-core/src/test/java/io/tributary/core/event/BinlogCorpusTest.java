package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every real binlog of the shared corpus decodes to its end and holds exactly the events that
 * {@code SOURCES.md} lists for it; every file in {@code malformed/} (and every file SOURCES.md notes
 * trailing bytes for) fails with a {@link BinlogFormatException} that names the file and the offset.
 */
class BinlogCorpusTest {

    @TestFactory
    Stream<DynamicTest> everyCorpusFileDecodesToItsEndWithTheEventsSourcesMdLists() {
        Map<Path, Map<String, BinlogCorpus.Entry>> sourcesByDir = new java.util.HashMap<>();
        return BinlogCorpus.perFile((dir, file) -> {
            String name = BinlogCorpus.relative(dir, file);
            return DynamicTest.dynamicTest(name, () -> {
                Map<String, BinlogCorpus.Entry> sources = sourcesByDir.computeIfAbsent(dir, BinlogCorpus::sources);
                assertThat(sources).as("SOURCES.md describes %s", name).containsKey(name);
                BinlogCorpus.Entry entry = sources.get(name);
                byte[] bytes = BinlogCorpus.read(file);
                if (name.startsWith("malformed/")) {
                    checkMalformed(name, bytes, entry);
                } else {
                    checkDecodes(name, bytes, entry, DecoderOptions.FULL);
                    checkDecodes(name, bytes, entry, DecoderOptions.HEADERS_ONLY);
                }
            });
        });
    }

    private static void checkMalformed(String name, byte[] bytes, BinlogCorpus.Entry entry) {
        List<BinlogEvent> events = new ArrayList<>();
        BinlogEventDecoder decoder = new BinlogEventDecoder(name, bytes);
        assertThatThrownBy(() -> decoder.forEachRemaining(events::add))
                .isInstanceOf(BinlogFormatException.class)
                .hasMessageStartingWith(name + " at offset ")
                .satisfies(e -> {
                    BinlogFormatException f = (BinlogFormatException) e;
                    assertThat(f.sourceName()).isEqualTo(name);
                    assertThat(f.offset()).isBetween(0L, (long) bytes.length);
                    if (entry.trailingOffset() != null) {
                        assertThat(f.offset()).isEqualTo(entry.trailingOffset());
                    }
                });
        assertThat(decoder.state()).isEqualTo(BinlogEventDecoder.State.FAILED);
        // The failure is terminal: asking again gives the same error, never a skip to the next event.
        assertThatThrownBy(decoder::hasNext).isInstanceOf(BinlogFormatException.class);
        if (entry.eventCount() >= 0 && entry.trailingOffset() != null) {
            assertThat(events).hasSize(entry.eventCount());
        }
    }

    private static void checkDecodes(String name, byte[] bytes, BinlogCorpus.Entry entry, DecoderOptions options) {
        List<BinlogEvent> events = new ArrayList<>();
        BinlogEventDecoder decoder = new BinlogEventDecoder(name, bytes, options);
        if (entry.trailingOffset() != null) {
            assertThatThrownBy(() -> decoder.forEachRemaining(events::add))
                    .isInstanceOf(BinlogFormatException.class)
                    .hasMessageStartingWith(name + " at offset " + entry.trailingOffset() + ": truncated event header");
        } else {
            decoder.forEachRemaining(events::add);
            assertThat(decoder.state()).isEqualTo(BinlogEventDecoder.State.DONE);
            assertThat(decoder.position()).as("no leftover bytes").isEqualTo(bytes.length);
        }

        // Top-level events as stored: expanded payload events count once per payload, as TRANSACTION_PAYLOAD.
        Map<Integer, Integer> counts = new TreeMap<>();
        Map<Integer, Integer> raw = new TreeMap<>();
        Map<Long, List<Integer>> payloads = new LinkedHashMap<>();
        for (BinlogEvent e : events) {
            if (e.isFromPayload()) {
                payloads.computeIfAbsent(e.offset(), k -> new ArrayList<>()).add(e.header().typeCode());
                assertThat(e.header().logPos()).as("inner events have log_pos 0").isZero();
                assertThat(e.checksumLength()).isZero();
            } else {
                counts.merge(e.header().typeCode(), 1, Integer::sum);
                raw.merge(e.originalTypeCode(), 1, Integer::sum);
            }
            assertThat(e.length()).isEqualTo(e.header().eventSize());
            assertThat(e.body() != null).isEqualTo(options.decodeBodies() || e.type() == EventType.FORMAT_DESCRIPTION);
        }
        if (!payloads.isEmpty()) {
            counts.merge(EventType.TRANSACTION_PAYLOAD.code(), payloads.size(), Integer::sum);
            raw.merge(EventType.TRANSACTION_PAYLOAD.code(), payloads.size(), Integer::sum);
        }
        assertThat(counts).as("event type counts of %s", name).isEqualTo(entry.typeCounts());
        assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(entry.eventCount());
        if (!entry.rawTypeCounts().isEmpty()) {
            assertThat(raw).as("raw (pre-GA) type codes of %s", name).isEqualTo(entry.rawTypeCounts());
        }
        assertThat(new ArrayList<>(payloads.values())).as("payload inner events").isEqualTo(entry.payloadInnerTypes());
        if (options.decodeBodies()) {
            checkFeatures(name, events, entry);
        }
    }

    private static void checkFeatures(String name, List<BinlogEvent> events, BinlogCorpus.Entry entry) {
        if (entry.commitTimestampGtids() != null) {
            List<GtidEvent> gtids = events.stream().filter(e -> e.body() instanceof GtidEvent)
                    .map(e -> (GtidEvent) e.body()).toList();
            assertThat(gtids).hasSize(entry.commitTimestampGtids()[1]);
            assertThat(gtids.stream().filter(g -> g.immediateCommitTimestamp() != null && g.originalCommitTimestamp() != null))
                    .as("GTIDs with 8.0 commit timestamps in %s", name).hasSize(entry.commitTimestampGtids()[0]);
        }
        if (entry.gtidList() != null) {
            GtidListEvent list = events.stream().filter(e -> e.body() instanceof GtidListEvent).findFirst()
                    .orElseThrow().body(GtidListEvent.class);
            assertThat(list.gtids()).map(GtidListEvent.MariaGtid::toString).containsExactlyElementsOf(entry.gtidList());
        }
        for (BinlogEvent e : events) {
            if (e.body() instanceof QueryEvent q) {
                assertThat(q.status().fullyParsed()).as("status variables of %s in %s", e, name).isTrue();
            }
            if (e.body() instanceof RowsEvent r) {
                assertThat(r.columnCount()).isPositive();
            }
        }
    }
}
