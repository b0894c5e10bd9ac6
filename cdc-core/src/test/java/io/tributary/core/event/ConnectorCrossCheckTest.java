package io.tributary.core.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.shyiko.mysql.binlog.BinaryLogFileReader;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.NullEventDataDeserializer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cross-check against the reader most CDC tools embed: for real corpus files, the GTIDs, table names and
 * query SQL we decode are exactly what mysql-binlog-connector-java's {@link BinaryLogFileReader} and
 * {@link EventDeserializer} report, in the same order.
 */
class ConnectorCrossCheckTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "mysql-5.5/mbcj__mysql-bin.sakila.gz",
        "mysql-5.6/rmc__binlog_56_gtid_reserved_word.000001",
        "mysql-5.7/mbcj__mysql-bin.checksum-crc32",
        "mysql-5.7/mbcj__mysql-bin.checksum-none",
        "mysql-5.7/zalora__gtid-mysql-bin.01",
        "mysql-8.0/maxwell__binlog.000004",
        "mysql-8.0/mysqlcdcrs__binlog.000733",
        "mysql-8.0/pbs__data_80045_gtid_binlog.000001",
        "mariadb-10.x/tiflow__mariadb-mysql-bin.000001",
        "mariadb-10.x/rmc__mariadb-bin.000001",
        "mariadb-11.x/mariadbpoc__domain_id_0_mariadb-repl-bin.000007",
    })
    void gtidsTablesAndQueriesMatchMysqlBinlogConnectorJava(String file) throws IOException {
        byte[] bytes = BinlogCorpus.read(file);
        List<String> ours = new ArrayList<>();
        new BinlogEventDecoder(file, bytes).forEachRemaining(e -> {
            if (e.body() instanceof GtidEvent g && e.type() == EventType.GTID) {
                ours.add("gtid " + g.gtid());
            } else if (e.body() instanceof MariaGtidEvent g) {
                ours.add("gtid " + g.gtid());
            } else if (e.body() instanceof TableMapEvent t) {
                ours.add("table " + t.tableId() + " " + t.database() + "." + t.table());
            } else if (e.body() instanceof QueryEvent q && e.type() == EventType.QUERY) {
                ours.add("query " + q.database() + ": " + q.sql());
            }
        });

        List<String> theirs = new ArrayList<>();
        EventDeserializer deserializer = new EventDeserializer();
        // Row images are not compared here (and the connector cannot decode some old ones without its client state).
        for (com.github.shyiko.mysql.binlog.event.EventType t : com.github.shyiko.mysql.binlog.event.EventType.values()) {
            if (com.github.shyiko.mysql.binlog.event.EventType.isRowMutation(t)) {
                deserializer.setEventDataDeserializer(t, new NullEventDataDeserializer());
            }
        }
        try (BinaryLogFileReader reader = new BinaryLogFileReader(new ByteArrayInputStream(bytes), deserializer)) {
            for (Event e; (e = reader.readEvent()) != null; ) {
                EventData d = e.getData();
                if (d instanceof GtidEventData g && g.getMySqlGtid() != null
                        && e.getHeader().getEventType() == com.github.shyiko.mysql.binlog.event.EventType.GTID) {
                    theirs.add("gtid " + g.getMySqlGtid());
                } else if (d instanceof MariadbGtidEventData g) {
                    // The connector fills the MariaDB GTID's server id from the header later, in its client.
                    long serverId = ((EventHeaderV4) e.getHeader()).getServerId();
                    theirs.add("gtid " + g.getDomainId() + "-" + serverId + "-" + g.getSequence());
                } else if (d instanceof TableMapEventData t) {
                    theirs.add("table " + t.getTableId() + " " + t.getDatabase() + "." + t.getTable());
                } else if (d instanceof QueryEventData q
                        && e.getHeader().getEventType() == com.github.shyiko.mysql.binlog.event.EventType.QUERY) {
                    theirs.add("query " + q.getDatabase() + ": " + q.getSql());
                }
            }
        }
        assertThat(ours).as("GTIDs, table maps and queries of %s", file).isNotEmpty().containsExactlyElementsOf(theirs);
    }
}
