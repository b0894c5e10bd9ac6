package io.tributary.storage.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.BinlogEventDecoder;
import io.tributary.core.event.DecoderOptions;
import io.tributary.core.event.EventType;
import io.tributary.core.event.MariaGtidEvent;
import io.tributary.core.event.QueryEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.position.ShardPosition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * What MariaDB shards' own binlog files say they committed, for the live pipeline tests to compare the global
 * binlog with: each transaction (a GTID group ending at XID) and each XA transaction (its branches: an
 * FL_PREPARED_XA group, then an FL_COMPLETED_XA {@code XA COMMIT} or {@code XA ROLLBACK}), with every shard's
 * commit order.
 */
final class ShardBinlogUnits {

    /**
     * One committed unit.
     *
     * @param key         {@code <shard>:<gtid>} for a transaction, {@code xa:<hex gtrid>} for an XA transaction
     * @param shards      the shards it committed on, in the order they were read
     * @param rows        its rows events as the caller maps them, shard by shard
     * @param commitOrder per shard: the position of its commit among the shard's events read
     */
    record Unit<T>(String key, List<Integer> shards, List<T> rows, Map<Integer, Long> commitOrder) {
    }

    private ShardBinlogUnits() {
    }

    /** The files of {@code dir} whose names match {@code pattern}, in name order. */
    /** A rows event as its type and the hex of its row images: equal for the same rows however they travelled. */
    static String rowsFingerprint(BinlogEvent e) {
        java.nio.ByteBuffer b = e.body(io.tributary.core.event.RowsEvent.class).rows();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return e.type() + ":" + HexFormat.of().formatHex(bytes);
    }

    static List<Path> files(Path dir, String pattern) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> p.getFileName().toString().matches(pattern)).sorted().toList();
        }
    }

    /**
     * Reads shard {@code index}'s binlog files in {@code dir} from {@code start} and adds its units to {@code out}
     * (an XA transaction's branch joins the unit its other shards' branches made), the rows of rolled-back
     * branches to {@code rolledBack}.
     *
     * @param counts whether a unit touching a table of this database counts (heartbeats should not)
     * @param row    what a rows event becomes in the unit
     */
    static <T> void read(int index, Path dir, ShardPosition start, Predicate<String> counts,
            Function<BinlogEvent, T> row, Map<String, Unit<T>> out, Collection<T> rolledBack) throws IOException {
        Map<String, List<T>> prepared = new HashMap<>();
        long order = 0;
        for (Path f : files(dir, "mariadb-bin\\.\\d+")) {
            String name = f.getFileName().toString();
            if (name.compareTo(start.file()) < 0) {
                continue;
            }
            BinlogEventDecoder d = new BinlogEventDecoder(name, Files.readAllBytes(f), DecoderOptions.FULL);
            MariaGtidEvent gtid = null;
            List<T> rows = new ArrayList<>();
            boolean counted = false;
            while (d.hasNext()) {
                BinlogEvent e = d.next();
                if (name.equals(start.file()) && e.offset() < start.position()) {
                    continue;
                }
                order++;
                if (e.body() instanceof MariaGtidEvent g) {
                    gtid = g;
                    rows = new ArrayList<>();
                    counted = false;
                } else if (e.body() instanceof TableMapEvent m) {
                    counted |= counts.test(m.database());
                } else if (e.type() != null && e.type().isRows()) {
                    rows.add(row.apply(e));
                } else if (gtid != null && (e.type() == EventType.XID || e.type() == EventType.XA_PREPARE_LOG)) {
                    if ((gtid.flags() & MariaGtidEvent.FL_PREPARED_XA) != 0) {
                        prepared.put(gtid.xid().toString(), counted ? rows : List.of());
                    } else if (counted && !rows.isEmpty()) {
                        String key = index + ":" + gtid.gtid();
                        out.put(key, new Unit<>(key, List.of(index), rows, Map.of(index, order)));
                    }
                    gtid = null;
                } else if (gtid != null && e.body() instanceof QueryEvent q
                        && (gtid.flags() & MariaGtidEvent.FL_COMPLETED_XA) != 0) {
                    List<T> branch = prepared.remove(gtid.xid().toString());
                    assertThat(branch).as("shard %d: prepare of %s read before its %s", index, gtid.xid(), q.sql())
                            .isNotNull();
                    if (q.sql().toUpperCase(Locale.ROOT).startsWith("XA ROLLBACK")) {
                        rolledBack.addAll(branch);
                    } else {
                        String key = "xa:" + HexFormat.of().formatHex(gtid.xid().gtrid());
                        Unit<T> prev = out.get(key);
                        List<Integer> shards = new ArrayList<>(prev == null ? List.of() : prev.shards());
                        List<T> all = new ArrayList<>(prev == null ? List.of() : prev.rows());
                        Map<Integer, Long> orders = new HashMap<>(prev == null ? Map.of() : prev.commitOrder());
                        shards.add(index);
                        all.addAll(branch);
                        orders.put(index, order);
                        out.put(key, new Unit<>(key, shards, all, orders));
                    }
                    gtid = null;
                }
            }
        }
    }

    /**
     * Whether {@code u} lies on a cycle of the shards' commit orders ({@code next}: each unit's successors on its
     * shards). Only XA transactions whose commits cross on two shards make one: then no output order keeps every
     * shard's order, and the sorter breaks the cycle.
     */
    static <T> boolean onCycle(Unit<T> u, Map<Unit<T>, List<Unit<T>>> next) {
        Set<Unit<T>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Unit<T>> todo = new ArrayDeque<>(next.getOrDefault(u, List.of()));
        while (!todo.isEmpty()) {
            Unit<T> v = todo.poll();
            if (v == u) {
                return true;
            }
            if (seen.add(v)) {
                todo.addAll(next.getOrDefault(v, List.of()));
            }
        }
        return false;
    }
}
