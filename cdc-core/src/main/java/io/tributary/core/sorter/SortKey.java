package io.tributary.core.sorter;

/**
 * The global order of units: heartbeat window first (the value of the last heartbeat before the unit on
 * its shard, so every cut is respected; in a stretch without heartbeats, its commit time less ten seconds where
 * that is later: {@link Lane#staleAfter}), then commit time, then shard index, then position in the
 * shard. Window and time are running maxima along each shard, so a shard's own order always agrees
 * with this order even when its clock steps back.
 */
record SortKey(long window, long timeMicros, int shard, long sequence) implements Comparable<SortKey> {

    @Override
    public int compareTo(SortKey o) {
        int c = Long.compare(window, o.window);
        if (c == 0) {
            c = Long.compare(timeMicros, o.timeMicros);
        }
        if (c == 0) {
            c = Integer.compare(shard, o.shard);
        }
        return c != 0 ? c : Long.compare(sequence, o.sequence);
    }

    static SortKey max(SortKey a, SortKey b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public String toString() {
        return "(w=" + window + ", t=" + timeMicros + ", shard " + shard + ", #" + sequence + ")";
    }
}
