package io.tributary.core.reader;

import io.tributary.core.packet.ComBinlogDumpGtid;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A MySQL GTID set: per source UUID, sorted disjoint intervals of transaction numbers. Text form
 * {@code uuid:1-5:7,uuid2:1-3} (as in {@code @@gtid_executed}); tagged GTIDs (8.3+) are not
 * supported and are refused with a message.
 *
 * <p>Mutable; owned by one thread.
 */
public final class MySqlGtidSet {
    private final TreeMap<UUID, List<long[]>> intervals = new TreeMap<>();

    public static MySqlGtidSet parse(String text) {
        MySqlGtidSet set = new MySqlGtidSet();
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

    public void add(UUID uuid, long gno) {
        addRange(uuid, gno, gno);
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
