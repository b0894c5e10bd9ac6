package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.test.junit.WithShards;
import io.tributary.test.shard.EmbeddedMariaDbShard;
import io.tributary.test.shard.ShardCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A MariaDB table map with YEAR and GEOMETRY columns relayed into a MySQL-flavor global binlog: MariaDB
 * counts YEAR among the numeric and GEOMETRY among the character columns of the optional metadata, MySQL
 * counts neither, so the encoder writes those fields in the output's grouping. Read back the MySQL way,
 * the signedness, charsets and names are those of the source.
 */
@WithShards(count = 1)
class TableMapAcrossFlavorsIT {

    @Test
    void shouldKeepSignednessCharsetsAndNamesWhenRelayingAMariaDbTableMapIntoMySqlFlavor(ShardCluster cluster)
            throws Exception {
        try (Connection c = cluster.info(0).openAdminConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE geo_3");
            s.execute("CREATE TABLE geo_3.places_0001 (id INT UNSIGNED PRIMARY KEY, built YEAR, shape GEOMETRY,"
                    + " label VARCHAR(20) CHARACTER SET latin1, code VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,"
                    + " visits BIGINT UNSIGNED, delta SMALLINT)");
            s.execute("INSERT INTO geo_3.places_0001 VALUES (1, 1999, ST_GeomFromText('POINT(1 2)'), 'a', 'b', 5, -3)");
        }
        TableMapEvent source = null;
        BinlogEvent sourceEvent = null;
        Path binlogs = ((EmbeddedMariaDbShard) cluster.shard(0)).binlogDirectory();
        List<Path> files;
        try (Stream<Path> list = Files.list(binlogs)) {
            files = list.filter(p -> p.getFileName().toString().matches("mariadb-bin\\.\\d+")).sorted().toList();
        }
        for (Path f : files) {
            for (BinlogEventDecoder d = new BinlogEventDecoder(f.getFileName().toString(), Files.readAllBytes(f)); d.hasNext(); ) {
                BinlogEvent e = d.next();
                if (e.type() == EventType.TABLE_MAP && e.body(TableMapEvent.class).table().equals("places_0001")) {
                    sourceEvent = e;
                    source = e.body(TableMapEvent.class);
                }
            }
        }
        assertThat(source).as("the shard's table map").isNotNull();
        assertThat(source.optional().unsignedColumns()).isNotNull();

        for (BinlogFlavor flavor : BinlogFlavor.values()) {
            BinlogEventEncoder encoder = new BinlogEventEncoder(flavor, 9);
            ByteBuf out = Unpooled.buffer();
            out.writeBytes(BinlogEventDecoder.MAGIC);
            encoder.formatDescription(out, 1_700_000_000L);
            encoder.tableMap(out, out.writerIndex(), sourceEvent, 77, "geo", "places");
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            List<BinlogEvent> back = new ArrayList<>();
            new BinlogEventDecoder("relayed-" + flavor, bytes).forEachRemaining(back::add);
            TableMapEvent relayed = back.get(1).body(TableMapEvent.class);

            assertThat(relayed.database()).isEqualTo("geo");
            assertThat(relayed.tableId()).isEqualTo(77);
            assertThat(relayed.columnTypes()).isEqualTo(source.columnTypes());
            assertThat(relayed.optional().columnNames()).as("%s names", flavor)
                    .containsExactly("id", "built", "shape", "label", "code", "visits", "delta");
            // MariaDB flags YEAR unsigned; MySQL's SIGNEDNESS has no bit for YEAR at all
            java.util.BitSet expected = source.optional().unsignedColumns();
            if (!flavor.isMariaDb()) {
                expected.clear(1);
            }
            assertThat(expected.get(0) && expected.get(5) && !expected.get(6)).isTrue();
            assertThat(relayed.optional().unsignedColumns()).as("%s signedness", flavor).isEqualTo(expected);
            assertThat(relayed.optional().columnCharsets().get(3)).as("%s latin1 column", flavor).isEqualTo(8);
            assertThat(relayed.optional().columnCharsets().get(4)).as("%s utf8mb4_bin column", flavor).isEqualTo(46);
            assertThat(relayed.optional().primaryKey()).isEqualTo(source.optional().primaryKey());
        }
    }
}
