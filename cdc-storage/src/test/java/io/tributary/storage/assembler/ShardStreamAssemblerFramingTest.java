package io.tributary.storage.assembler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.framing.Boundary;
import io.tributary.core.framing.TransactionFramer;
import io.tributary.core.position.ShardPosition;
import io.tributary.core.reader.ShardEvent;
import io.tributary.storage.buffer.LivePersistSettings;
import io.tributary.storage.buffer.PersistConfig;
import io.tributary.storage.buffer.SpillStore;
import io.tributary.storage.buffer.TransactionBuffer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The assembler acts on the framing the reader carries with each event ({@link Boundary}, transaction start and end)
 * and gives exactly the units it gives for the same events built without it (framed by the assembler itself, once):
 * same kinds, keys, positions, xids and buffered events, on real binlogs of both flavours.
 */
class ShardStreamAssemblerFramingTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"mariadb-10.x/tiflow__mariadb-mysql-bin.000001", "mariadb-10.x/rmc__mariadb-bin.000001",
            "mariadb-11.x/mariadbpoc__domain_id_0_mariadb-repl-bin.000007", "mysql-8.0/rmc__transaction_compression.000001",
            "mysql-8.0/ape__mysql-bin.000057", "mysql-5.7/canal__tsdb-mysql-bin.000002", "mysql-5.7/boxercrab__16_xid.log.bin",
            "mysql-5.6/rmc__binlog_transaction_with_GTID.000001"})
    void shouldGiveTheSameUnitsWithTheReadersBoundaryAsWithout(String path) throws Exception {
        String shared = System.getProperty("tributary.shared.dir");
        Path p = shared == null ? null : Path.of(shared, "testdata", "binlog").resolve(path);
        assumeTrue(p != null && Files.isRegularFile(p), "corpus file " + path + " not found (tributary.shared.dir=" + shared
                + "); skipped");
        byte[] bytes;
        try (InputStream in = path.endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(p)) : Files.newInputStream(p)) {
            bytes = in.readAllBytes();
        }
        String file = p.getFileName().toString();
        List<BinlogEvent> outer = new ArrayList<>();
        new BinlogEventDecoder(file, bytes, DecoderOptions.HEADERS_ONLY.withExpand(false)).forEachRemaining(outer::add);
        List<String> plain = units(file, outer, false);
        List<String> framed = units(file, outer, true);
        assertThat(plain).as("units of %s", path).isNotEmpty();
        assertThat(framed).as("units of %s with the reader's boundaries", path).isEqualTo(plain);
    }

    private List<String> units(String file, List<BinlogEvent> outer, boolean framed) throws Exception {
        List<String> units = new ArrayList<>();
        Map<String, String> values = new HashMap<>(Map.of("storage.path", dir.resolve("spill").toString()));
        try (SpillStore store = SpillStore.open(dir.resolve("spill-" + framed));
                TransactionBuffer buffer = new TransactionBuffer(new LivePersistSettings(new PersistConfig(1L << 30), values),
                        store)) {
            ShardStreamAssembler a = new ShardStreamAssembler(0, "s0", ShardPosition.at(file, 4), buffer, u -> {
                StringBuilder sb = new StringBuilder(u.toString());
                if (u.payload() != null) {
                    u.payload().events().forEachRemaining(e -> sb.append(' ').append(e.offset()).append('/')
                            .append(e.innerOffset()).append(':').append(e.type()));
                    u.payload().release();
                }
                units.add(sb.toString());
            });
            TransactionFramer framer = new TransactionFramer();
            for (BinlogEvent e : outer) {
                ByteBuf b = Unpooled.wrappedBuffer(e.rawBytes());
                Boundary boundary = framed ? framer.frame(b, 0, e.header().typeCode(), e.length() - e.checksumLength()) : null;
                ShardPosition after = ShardPosition.at(file, e.header().logPos());
                a.accept(new ShardEvent("s0", e.header().typeCode(), e.header().timestamp(), e.header().serverId(), e.length(),
                        e.header().logPos(), e.header().flags(), e.checksumLength() > 0, after, after, framed && framer.opened(), framed && framer.ended(), b,
                        boundary));
            }
            a.close();
            assertThat(buffer.openTransactions()).isZero();
        }
        return units;
    }
}
