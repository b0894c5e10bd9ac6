package io.tributary.core.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tributary.core.framing.Boundary;
import io.tributary.core.position.ShardPosition;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The tracker frames each event once and hands the {@link Boundary} on with it; its transaction ends and restart
 * positions follow the framer; a body too short to frame is a corrupt event naming shard, position and what was
 * expected.
 */
class BinlogStreamTrackerFramingTest {

    @Test
    void shouldHandOnTheBoundaryOfEveryEventOfARealFile() throws Exception {
        Path file = BinlogStreamTrackerTest.corpus().resolve("mariadb-10.x/tiflow__mariadb-mysql-bin.000001");
        BinlogStreamTracker tracker = new BinlogStreamTracker("corpus", true, ShardPosition.at(file.getFileName().toString(), 4));
        List<ShardEvent> events = BinlogStreamTrackerTest.replay(tracker, BinlogStreamTrackerTest.read(file));
        assertThat(events).allSatisfy(e -> assertThat(e.boundary()).isNotNull());
        for (ShardEvent e : events) {
            if (e.type() == BinlogStreamTracker.XID) {
                assertThat(e.boundary()).isEqualTo(Boundary.XID);
            }
            if (e.type() == BinlogStreamTracker.MARIADB_GTID) {
                assertThat(e.boundary()).isIn(Boundary.MARIADB_GTID, Boundary.MARIADB_GTID_STANDALONE);
                assertThat(e.restartPosition()).as("a GTID opens a transaction").isNotEqualTo(e.position());
            }
        }
        assertThat(events).extracting(ShardEvent::boundary).contains(Boundary.MARIADB_GTID,
                Boundary.MARIADB_GTID_STANDALONE, Boundary.STATEMENT, Boundary.OTHER);
    }

    @Test
    void shouldReportAQueryTooShortToFrameAsACorruptEvent() {
        ByteBuf query = Unpooled.buffer();
        query.writeIntLE(0).writeByte(2).writeIntLE(1).writeIntLE(19 + 13).writeIntLE(0).writeShortLE(0);
        query.writeIntLE(7).writeIntLE(0).writeByte(4).writeShortLE(0).writeShortLE(0); // db of 4 bytes, nothing after
        BinlogStreamTracker tracker = new BinlogStreamTracker("s0", false, ShardPosition.at("binlog.000007", 1234));
        assertThatThrownBy(() -> tracker.accept(query))
                .isInstanceOf(CorruptShardEventException.class)
                .hasMessage("shard s0: corrupt event at binlog.000007:1234: event type 2 needs 37 bytes before its checksum, has 32");
        assertThat(query.refCnt()).isZero();
        ByteBuf xid = Unpooled.buffer();
        xid.writeIntLE(0).writeByte(16).writeIntLE(1).writeIntLE(19 + 8).writeIntLE(0).writeShortLE(0).writeLongLE(9);
        assertThatThrownBy(() -> tracker.accept(xid))
                .as("the framer failed for good: the connection's tracker takes no more events")
                .isInstanceOf(CorruptShardEventException.class)
                .hasMessageContaining("framing stopped at an earlier event");
    }
}
