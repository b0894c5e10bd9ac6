package io.tributary.core.event;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * MySQL PREVIOUS_GTIDS (35): the GTID set executed before this file. Body: {@code n_sids(8)} then per
 * source {@code sid(16) n_intervals(8)} and {@code start(8) end(8)} per interval (end exclusive). In the
 * tagged format (8.3+) the top byte of the first word is 1, n_sids sits in bits 8-55 and each sid is
 * followed by {@code tag_length(varlen) tag}.
 *
 * @param sets one entry per (sid, tag)
 */
public record PreviousGtidsEvent(List<SidIntervals> sets) implements EventBody {

    /** Intervals of one source; {@code tag} is empty when untagged. */
    public record SidIntervals(UUID sid, String tag, List<Interval> intervals) {
        public SidIntervals {
            intervals = List.copyOf(intervals);
        }
    }

    /** GNOs {@code start} (inclusive) to {@code end} (exclusive). */
    public record Interval(long start, long end) {
    }

    public PreviousGtidsEvent {
        sets = List.copyOf(sets);
    }

    /** The set as MySQL prints it, e.g. {@code 3e11fa47-...:1-5:7,tag:1-3}. */
    public String gtidSet() {
        StringBuilder sb = new StringBuilder();
        for (SidIntervals s : sets) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(s.sid());
            if (!s.tag().isEmpty()) {
                sb.append(':').append(s.tag());
            }
            for (Interval i : s.intervals()) {
                sb.append(':').append(i.start());
                if (i.end() - 1 != i.start()) {
                    sb.append('-').append(i.end() - 1);
                }
            }
        }
        return sb.toString();
    }

    static PreviousGtidsEvent read(EventReader r) {
        long word = r.u64("n_sids");
        boolean tagged = (word >>> 56) == 1;
        long count = tagged ? (word >>> 8) & ((1L << 48) - 1) : word;
        // Each entry takes at least 24 bytes: refuse a count the body cannot hold before allocating.
        if (count < 0 || count > r.remaining() / 24) {
            throw new MalformedEventException("n_sids " + count + " cannot fit in the " + r.remaining() + " bytes left");
        }
        List<SidIntervals> sets = new ArrayList<>((int) count);
        for (long s = 0; s < count; s++) {
            UUID sid = r.uuid("sid");
            String tag = tagged ? r.string(r.varlen("tag length"), "tag") : "";
            long n = r.u64("n_intervals");
            if (n < 0 || n > r.remaining() / 16) {
                throw new MalformedEventException("n_intervals " + n + " cannot fit in the " + r.remaining() + " bytes left");
            }
            List<Interval> intervals = new ArrayList<>((int) n);
            for (long i = 0; i < n; i++) {
                intervals.add(new Interval(r.u64("interval start"), r.u64("interval end")));
            }
            sets.add(new SidIntervals(sid, tag, intervals));
        }
        return new PreviousGtidsEvent(sets);
    }
}
