package io.tributary.core.position;

import io.tributary.core.packet.ComBinlogDumpGtid;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A MySQL GTID set: per source UUID, sorted disjoint intervals of transaction numbers. Text form
 * {@code uuid:1-5:7,uuid2:1-3} (as in {@code @@gtid_executed}); tagged GTIDs (8.3+) are not
 * supported and are refused with a message.
 *
 * <p>Immutable, so it can be handed between threads and kept in positions; a reader that adds one GTID per
 * transaction does so on a {@link Builder} it owns.
 */
public final class MySqlGtidSet {
    /** Unmodifiable; each interval is {@code {start, end}}, inclusive, never written after construction. */
    private final SortedMap<UUID, List<long[]>> intervals;

    private MySqlGtidSet(TreeMap<UUID, List<long[]>> owned) {
        this.intervals = Collections.unmodifiableSortedMap(owned);
    }

    public static MySqlGtidSet parse(String text) {
        return builder(text).build();
    }

    /** A builder holding the set {@code text} names (empty for null or blank). */
    public static Builder builder(String text) {
        Builder set = new Builder();
        if (text == null || text.isBlank()) {
            return set;
        }
        for (String part : text.replace("\n", "").split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            String[] fields = p.split(":");
            if (fields.length < 2) {
                throw new IllegalArgumentException("invalid MySQL GTID set '" + text + "': '" + p + "' has no intervals");
            }
            UUID uuid;
            try {
                uuid = UUID.fromString(fields[0].strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid MySQL GTID set '" + text + "': '" + fields[0] + "' is not a UUID", e);
            }
            for (int i = 1; i < fields.length; i++) {
                String[] range = fields[i].strip().split("-");
                try {
                    long start = Long.parseLong(range[0]);
                    long end = range.length > 1 ? Long.parseLong(range[1]) : start;
                    if (start < 1 || end < start || range.length > 2) {
                        throw new NumberFormatException();
                    }
                    set.addRange(uuid, start, end);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("invalid MySQL GTID set '" + text + "': interval '" + fields[i]
                            + "' (tagged GTIDs are not supported)", e);
                }
            }
        }
        return set;
    }

    /**
     * A GTID set being built: the one mutable form, owned by one thread (a shard reader adds the GTID of each
     * transaction it passes). {@link #build} gives the immutable set.
     */
    public static final class Builder {
        private final TreeMap<UUID, List<long[]>> intervals = new TreeMap<>();

        private Builder() {
        }

        public Builder add(UUID uuid, long gno) {
            addRange(uuid, gno, gno);
            return this;
        }

        private void addRange(UUID uuid, long start, long end) {
            List<long[]> list = intervals.computeIfAbsent(uuid, u -> new ArrayList<>());
            int i = 0;
            while (i < list.size() && list.get(i)[1] < start - 1) {
                i++;
            }
            long s = start;
            long e = end;
            while (i < list.size() && list.get(i)[0] <= end + 1) {
                s = Math.min(s, list.get(i)[0]);
                e = Math.max(e, list.get(i)[1]);
                list.remove(i);
            }
            list.add(i, new long[] {s, e});
        }

        /** The set as built so far; later adds do not change it. */
        public MySqlGtidSet build() {
            TreeMap<UUID, List<long[]>> copy = new TreeMap<>();
            intervals.forEach((uuid, list) -> {
                List<long[]> ranges = new ArrayList<>(list.size());
                list.forEach(r -> ranges.add(new long[] {r[0], r[1]}));
                copy.put(uuid, Collections.unmodifiableList(ranges));
            });
            return new MySqlGtidSet(copy);
        }

        /** The text form of the set as built so far. */
        @Override
        public String toString() {
            return format(intervals);
        }
    }

    public boolean contains(UUID uuid, long gno) {
        for (long[] r : intervals.getOrDefault(uuid, List.of())) {
            if (gno >= r[0] && gno <= r[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * The highest {@code n} such that {@code uuid:1-n} is in the set, 0 when {@code uuid:1} is not: what a reader
     * of a binlog that numbers {@code uuid}'s transactions without gaps may skip at once.
     */
    public long gaplessEnd(UUID uuid) {
        List<long[]> list = intervals.getOrDefault(uuid, List.of());
        return list.isEmpty() || list.get(0)[0] != 1 ? 0 : list.get(0)[1];
    }

    /** The highest transaction number of {@code uuid} in the set, 0 when none. */
    public long highest(UUID uuid) {
        List<long[]> list = intervals.getOrDefault(uuid, List.of());
        return list.isEmpty() ? 0 : list.get(list.size() - 1)[1];
    }

    /** The SID block of COM_BINLOG_DUMP_GTID. */
    public List<ComBinlogDumpGtid.Sid> toSids() {
        List<ComBinlogDumpGtid.Sid> sids = new ArrayList<>();
        for (Map.Entry<UUID, List<long[]>> e : intervals.entrySet()) {
            List<ComBinlogDumpGtid.Interval> list = new ArrayList<>();
            for (long[] r : e.getValue()) {
                list.add(new ComBinlogDumpGtid.Interval(r[0], r[1] + 1));
            }
            sids.add(new ComBinlogDumpGtid.Sid(e.getKey(), list));
        }
        return sids;
    }

    @Override
    public String toString() {
        return format(intervals);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MySqlGtidSet other && toString().equals(other.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    private static String format(Map<UUID, List<long[]>> intervals) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<UUID, List<long[]>> e : intervals.entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey());
            for (long[] r : e.getValue()) {
                sb.append(':').append(r[0]);
                if (r[1] != r[0]) {
                    sb.append('-').append(r[1]);
                }
            }
        }
        return sb.toString();
    }
}
