package io.tributary.test.clients;

import io.tributary.test.daemon.DaemonProcess;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** What a user checks in what a CDC client delivered: every row written, once, under its logical name, each XA whole. */
final class Delivery {

    private Delivery() {
    }

    /**
     * {@code got} holds exactly the {@code expected} changes (each once, no other), all under the logical table
     * {@code <db>.orders}; the rows of each XA transaction among them carry one GTID, which no other row carries.
     */
    static void assertDelivered(List<ChangeRow> got, List<String> expected, ShardWrites writes) {
        assertThat(got).extracting(ChangeRow::change).as("every row change written, once, and nothing else")
                .containsExactlyInAnyOrderElementsOf(expected);
        assertThat(got).allSatisfy(r -> {
            assertThat(r.database()).as("logical database").isEqualTo(writes.logicalDatabase());
            assertThat(r.table()).as("logical table").isEqualTo("orders");
            assertThat(r.gtid()).as("the transaction's GTID of %s", r.change()).isNotBlank();
        });
        Map<String, ChangeRow> byChange = got.stream().collect(Collectors.toMap(ChangeRow::change, Function.identity()));
        Set<String> wanted = Set.copyOf(expected);
        int checked = 0;
        for (List<String> xa : writes.xaTransactions()) {
            if (!wanted.containsAll(xa)) {
                continue;
            }
            Set<String> gtids = xa.stream().map(c -> byChange.get(c).gtid()).collect(Collectors.toSet());
            assertThat(gtids).as("the GTIDs of XA transaction %s (branches on both shards)", xa).hasSize(1);
            String gtid = gtids.iterator().next();
            assertThat(got.stream().filter(r -> gtid.equals(r.gtid())).map(ChangeRow::change).toList())
                    .as("the rows of transaction %s", gtid).containsExactlyInAnyOrderElementsOf(xa);
            checked++;
        }
        assertThat(checked).as("XA transactions among the rows").isPositive();
    }

    /**
     * No statement the client sent was answered with an error: the dump server logs each such answer at INFO
     * ({@code dump connection N (user): error CODE for '...'}), in every run of the daemon.
     */
    static void assertNothingRefused(DaemonProcess daemon) throws IOException {
        assertNothingRefusedBut(daemon, "\u0000");
    }

    /** As {@link #assertNothingRefused}, but for the errors whose log line contains {@code expected}. */
    static void assertNothingRefusedBut(DaemonProcess daemon, String expected) throws IOException {
        List<String> refused = new ArrayList<>();
        try (var logs = Files.list(daemon.directory())) {
            for (Path log : logs.filter(p -> p.getFileName().toString().matches("daemon-\\d+\\.log")).sorted().toList()) {
                for (String line : Files.readAllLines(log, StandardCharsets.ISO_8859_1)) {
                    if (line.contains("ConnectionHandler") && line.matches(".*\\): error \\d+ for '.*")
                            && !line.contains(expected)) {
                        refused.add(line);
                    }
                }
            }
        }
        assertThat(refused).as("statements of the client the dump port answered with an error").isEmpty();
    }
}
