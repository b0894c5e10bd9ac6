package io.tributary.test.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's first command, run for a few seconds: shards start, the load commits, status is printed, all stops. */
class QuickstartIT {

    private static final Pattern STATUS = Pattern.compile(
            "status .*shard-0 mariadb-bin\\.\\d+:(\\d+) gtid 0-101-(\\d+) \\| shard-1 mariadb-bin\\.\\d+:(\\d+) gtid 0-102-(\\d+)"
                    + " \\| txns single-shard (\\d+), XA committed (\\d+), XA rolled back (\\d+)");

    @Test
    void shouldStartShardsRunTheSampleLoadPrintStatusAndStop() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        Quickstart.run(Quickstart.Options.parse("--duration=4", "--rate=50", "--status-interval=1"),
                new PrintStream(buffer, true, StandardCharsets.UTF_8));
        String output = buffer.toString(StandardCharsets.UTF_8);

        assertThat(output).contains("shard-0", "shard-1", "mariadb-binlog --read-from-remote-server", "Stopped.");
        // the global binlog: every transaction the load committed, XA branches as one, written by the pipeline
        Matcher global = Pattern.compile("global binlog\\.\\d+:(\\d+), (\\d+) transactions").matcher(
                output.lines().filter(l -> l.startsWith("status")).reduce((a, b) -> b).orElse(""));
        assertThat(global.find()).as("global binlog status in:%n%s", output).isTrue();
        assertThat(output).doesNotContain("FAILED");
        List<Matcher> statuses = output.lines().map(STATUS::matcher).filter(Matcher::find).toList();
        assertThat(statuses).as("status lines in:%n%s", output).hasSizeGreaterThanOrEqualTo(3);
        Matcher last = statuses.get(statuses.size() - 1);
        long single = Long.parseLong(last.group(5));
        long xa = Long.parseLong(last.group(6));
        long xaRolledBack = Long.parseLong(last.group(7));
        assertThat(single).isGreaterThan(50);
        assertThat(xa + xaRolledBack).isGreaterThan(5);
        // every committed transaction got a GTID on its shard: single-shard ones on one shard, XA on both
        // (prepare and commit each take one), DDL too; so the shards' sequence numbers sum to at least that
        long seq0 = Long.parseLong(last.group(2));
        long seq1 = Long.parseLong(last.group(4));
        assertThat(seq0 + seq1).isGreaterThanOrEqualTo(single + 2 * xa);
        // one global transaction per single-shard transaction and per committed XA (plus the schema's DDL)
        assertThat(Long.parseLong(global.group(2))).as("global transactions").isGreaterThanOrEqualTo(single + xa);
    }

    @Test
    void shouldRefuseABadOptionNamingItAndWhatIsAllowed() {
        assertThatThrownBy(() -> Quickstart.Options.parse("--shards=9"))
                .hasMessage("Invalid value 9 for --shards: must be 1 to 8");
        assertThatThrownBy(() -> Quickstart.Options.parse("--speed=3"))
                .hasMessageContaining("Unknown option --speed");
    }
}
