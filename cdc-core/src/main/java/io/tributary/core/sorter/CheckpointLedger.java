package io.tributary.core.sorter;

import io.tributary.core.position.ShardCheckpoint;
import io.tributary.core.position.ShardPosition;
import java.util.Set;

/**
 * Per shard, which units are done and where a restart must resume: at the first unit that is still
 * pending (a buffered transaction, a prepared XA branch waiting for its commit), skipping the units after
 * it that are already written. Done units before the first pending one are forgotten.
 *
 * <p>Owned by the sorter's thread.
 */
final class CheckpointLedger {

    private enum State { PENDING, EMITTED, CONSUMED }

    /** One unit; only its state changes (in place: a restate needs no second tree insertion). */
    private static final class Item {
        private final ShardPosition start;
        private final ShardPosition end;
        private final String key;
        private final ShardCheckpoint.Clock before;
        private State state;

        Item(ShardPosition start, ShardPosition end, String key, State state, ShardCheckpoint.Clock before) {
            this.start = start;
            this.end = end;
            this.key = key;
            this.state = state;
            this.before = before;
        }

        ShardPosition start() {
            return start;
        }

        ShardPosition end() {
            return end;
        }

        String key() {
            return key;
        }

        State state() {
            return state;
        }

        ShardCheckpoint.Clock before() {
            return before;
        }
    }

    private final String shard;
    /**
     * Items by sequence, ascending, in a ring: units arrive in shard order, so records append at the tail and
     * done ones leave at the head (a TreeMap's boxing and rebalancing were a visible cost per unit).
     */
    private final Items items = new Items();
    private ShardPosition doneThrough;
    private ShardCheckpoint.Clock clockAfterDone;
    private ShardCheckpoint published;
    /** Whether anything was recorded since the last {@link #takeIfChanged()}: if not, the checkpoint stands. */
    private boolean touched;
    /**
     * Items in {@link #items} that are EMITTED: while none is, {@code writtenAfter} is empty without a scan (the
     * usual case; scanning every pending unit on each emission made a window's checkpoints quadratic in it).
     */
    private int emittedHeld;

    CheckpointLedger(ShardCheckpoint start) {
        this.shard = start.shard();
        this.doneThrough = start.resumeFrom();
        this.clockAfterDone = start.clock();
        this.published = start;
    }

    /** Records a unit; {@code before} is the shard's clock before the unit was offered. */
    void pending(ShardUnit<?> u, ShardCheckpoint.Clock before) {
        put(u, State.PENDING, before);
    }

    void emitted(ShardUnit<?> u, ShardCheckpoint.Clock before) {
        put(u, State.EMITTED, before);
    }

    void consumed(ShardUnit<?> u, ShardCheckpoint.Clock before) {
        put(u, State.CONSUMED, before);
    }

    /** Marks a unit recorded earlier as emitted or consumed. */
    void emitted(ShardUnit<?> u) {
        restate(u, State.EMITTED);
    }

    void consumed(ShardUnit<?> u) {
        restate(u, State.CONSUMED);
    }

    /** The clock after everything recorded so far; set by the sorter after each offer. */
    void clockNow(ShardCheckpoint.Clock now) {
        this.clockNow = now;
        touched = true;
    }

    private ShardCheckpoint.Clock clockNow;

    private void put(ShardUnit<?> u, State state, ShardCheckpoint.Clock before) {
        Item replaced = items.put(u.sequence(), new Item(u.start(), u.end(), u.key(), state, before));
        if (replaced != null && replaced.state() == State.EMITTED) {
            emittedHeld--;
        }
        if (state == State.EMITTED) {
            emittedHeld++;
        }
        touched = true;
    }

    private void restate(ShardUnit<?> u, State state) {
        Item item = items.get(u.sequence());
        if (item == null) {
            throw new IllegalStateException(shard + ": unit " + u + " was never recorded");
        }
        if (item.state == State.EMITTED) {
            emittedHeld--;
        }
        if (state == State.EMITTED) {
            emittedHeld++;
        }
        item.state = state;
        touched = true;
    }

    /** The checkpoint if it moved since it was last taken, else {@code null}. */
    ShardCheckpoint takeIfChanged() {
        if (!touched) {
            return null; // every emission asks every shard; most did not move
        }
        touched = false;
        ShardCheckpoint now = current();
        if (now.equals(published)) {
            return null;
        }
        published = now;
        return now;
    }

    ShardCheckpoint current() {
        while (!items.isEmpty()) {
            Item item = items.at(0);
            if (item.state() == State.PENDING) {
                break;
            }
            doneThrough = item.end();
            if (item.state() == State.EMITTED) {
                emittedHeld--;
            }
            items.removeFirst();
        }
        if (items.isEmpty()) {
            if (clockNow != null) {
                clockAfterDone = clockNow;
            }
            return new ShardCheckpoint(shard, doneThrough, Set.of(), clockAfterDone);
        }
        Item first = items.at(0);
        if (emittedHeld == 0) {
            return new ShardCheckpoint(shard, first.start(), Set.of(), first.before());
        }
        // hashed once, into the immutable set the checkpoint keeps (a catch-up holds hundreds of units written
        // after a prepare that waits for its XA transaction, and this runs at each emission of their shard)
        String[] keys = new String[emittedHeld];
        int n = 0;
        for (int i = 0; i < items.size() && n < keys.length; i++) {
            Item item = items.at(i);
            if (item.state() == State.EMITTED) {
                keys[n++] = item.key();
            }
        }
        Set<String> writtenAfter;
        try {
            writtenAfter = Set.of(n == keys.length ? keys : java.util.Arrays.copyOf(keys, n));
        } catch (IllegalArgumentException twice) {
            writtenAfter = Set.copyOf(java.util.Arrays.asList(keys).subList(0, n)); // a key held twice: once
        }
        return new ShardCheckpoint(shard, first.start(), writtenAfter, first.before());
    }

    /** A sorted map from sequence to item as a growable ring; appends and head removals in O(1). */
    private static final class Items {
        private long[] sequences = new long[16];
        private Item[] values = new Item[16];
        private int head;
        private int size;

        boolean isEmpty() {
            return size == 0;
        }

        int size() {
            return size;
        }

        Item at(int i) {
            return values[(head + i) & (values.length - 1)];
        }

        private long sequenceAt(int i) {
            return sequences[(head + i) & (values.length - 1)];
        }

        void removeFirst() {
            values[head] = null;
            head = (head + 1) & (values.length - 1);
            size--;
        }

        /** The index of {@code sequence}, or {@code -(insertion point) - 1}. */
        private int indexOf(long sequence) {
            int lo = 0;
            int hi = size - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                long s = sequenceAt(mid);
                if (s < sequence) {
                    lo = mid + 1;
                } else if (s > sequence) {
                    hi = mid - 1;
                } else {
                    return mid;
                }
            }
            return -lo - 1;
        }

        Item get(long sequence) {
            if (size > 0 && sequenceAt(size - 1) == sequence) {
                return at(size - 1);
            }
            if (size > 0 && sequenceAt(0) == sequence) {
                return at(0); // the usual emission: the shard's oldest unit
            }
            int i = indexOf(sequence);
            return i >= 0 ? at(i) : null;
        }

        /** Puts the item at {@code sequence}; returns the one it replaced, or null. */
        Item put(long sequence, Item item) {
            int at;
            if (size == 0 || sequenceAt(size - 1) < sequence) {
                at = size; // the usual case: the shard's next unit
            } else {
                int i = indexOf(sequence);
                if (i >= 0) {
                    int slot = (head + i) & (values.length - 1);
                    Item replaced = values[slot];
                    values[slot] = item;
                    return replaced;
                }
                at = -i - 1;
            }
            if (size == values.length) {
                grow();
            }
            int mask = values.length - 1;
            for (int k = size; k > at; k--) {
                sequences[(head + k) & mask] = sequences[(head + k - 1) & mask];
                values[(head + k) & mask] = values[(head + k - 1) & mask];
            }
            sequences[(head + at) & mask] = sequence;
            values[(head + at) & mask] = item;
            size++;
            return null;
        }

        private void grow() {
            long[] s = new long[sequences.length * 2];
            Item[] v = new Item[values.length * 2];
            for (int i = 0; i < size; i++) {
                s[i] = sequenceAt(i);
                v[i] = at(i);
            }
            sequences = s;
            values = v;
            head = 0;
        }
    }
}
