package io.tributary.storage.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class BinlogFilesTest {
    @Test
    void shouldReadTheNumberOfAFileItNamed() {
        for (long n : new long[] {1, 42, 999_999, 1_000_000, 123_456_789_012L}) {
            assertThat(BinlogFiles.fileNumber(BinlogFiles.fileName(n))).hasValue(n);
            assertThat(BinlogFiles.requireFileNumber(BinlogFiles.fileName(n))).isEqualTo(n);
        }
        assertThat(BinlogFiles.fileName(7)).isEqualTo("binlog.000007");
    }

    @Test
    void shouldTellWhatIsNotABinlogFileName() {
        for (String name : new String[] {"binlog.index", "binlog.checkpoint", "auto.cnf", "binlog.00001",
                "binlog.000000", "binlog_000001", "binlogs.000001", "mysql-bin.000001", "binlog.000001.tmp",
                "binlog.00000x", "binlog.-00001", "binlog.\u0661\u0662\u0663\u0664\u0665\u0666",
                "binlog.0000000000000000001"}) {
            assertThat(BinlogFiles.fileNumber(name)).as(name).isEqualTo(OptionalLong.empty());
        }
        assertThatThrownBy(() -> BinlogFiles.requireFileNumber("binlog.index"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a binlog file name: 'binlog.index' (expected binlog.NNNNNN)");
        assertThatThrownBy(() -> new BinlogPosition("relay.000001", 4)).hasMessageContaining("'relay.000001'");
    }

    @Test
    void shouldOrderPositionsByFileNumberThenOffset() {
        assertThat(new BinlogPosition("binlog.999999", 900)).isLessThan(new BinlogPosition("binlog.1000000", 4));
        assertThat(new BinlogPosition("binlog.000002", 4)).isLessThan(new BinlogPosition("binlog.000002", 5));
    }
}
