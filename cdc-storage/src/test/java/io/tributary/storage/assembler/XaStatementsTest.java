package io.tributary.storage.assembler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.XaXid;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XaStatementsTest {

    private static XaXid xid(long format, String gtrid, String bqual) {
        return new XaXid(format, gtrid.getBytes(StandardCharsets.UTF_8), bqual.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheXidAsServersWriteItIntoTheBinlog() {
        // MySQL and MariaDB log XA COMMIT / ROLLBACK with hex literals and the format id
        assertThat(XaStatements.xid("XA COMMIT X'74782d31',X'6230',1", "t")).isEqualTo(xid(1, "tx-1", "b0"));
        assertThat(XaStatements.xid("XA ROLLBACK X'74782d31',X'',7", "t")).isEqualTo(xid(7, "tx-1", ""));
        // what a client types is accepted too
        assertThat(XaStatements.xid("xa commit 'tx-1','b1'", "t")).isEqualTo(xid(1, "tx-1", "b1"));
        assertThat(XaStatements.xid("XA COMMIT 'tx-2'", "t")).isEqualTo(xid(1, "tx-2", ""));
    }

    @Test
    void onePhaseCommitIsRecognised() {
        assertThat(XaStatements.onePhase("XA COMMIT X'74782d31',X'6230',1 ONE  PHASE")).isTrue();
        assertThat(XaStatements.onePhase("XA COMMIT X'74782d31',X'6230',1")).isFalse();
    }

    @Test
    void aStatementWithoutXidIsRefusedNamingWhereItWas() {
        assertThatThrownBy(() -> XaStatements.xid("XA COMMIT", "shard-2 at mariadb-bin.000003:4711"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shard-2 at mariadb-bin.000003:4711: no xid in: XA COMMIT");
        assertThatThrownBy(() -> XaStatements.xid("XA COMMIT X'7478", "s at f:1"))
                .hasMessageContaining("unterminated X'...'");
    }
}
