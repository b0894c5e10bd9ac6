package io.tributary.core.order;

import io.tributary.core.reader.ShardPosition;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

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
    private final TreeMap<Long, Item> items = new TreeMap<>();
    private ShardPosition doneThrough;
    private ShardCheckpoint.Clock clockAfterDone;
    private ShardCheckpoint published;
    /** Whether anything was recorded since the last {@link #takeIfChanged()}: if not, the checkpoint stands. */
    private boolean touched;

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
        items.put(u.sequence(), new Item(u.start(), u.end(), u.key(), state, before));
        touched = true;
    }

    private void restate(ShardUnit<?> u, State state) {
        Item item = items.get(u.sequence());
        if (item == null) {
            throw new IllegalStateException(shard + ": unit " + u + " was never recorded");
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
        Iterator<Map.Entry<Long, Item>> it = items.entrySet().iterator();
        while (it.hasNext()) {
            Item item = it.next().getValue();
            if (item.state() == State.PENDING) {
                break;
            }
            doneThrough = item.end();
            it.remove();
        }
        if (items.isEmpty()) {
            if (clockNow != null) {
                clockAfterDone = clockNow;
            }
            return new ShardCheckpoint(shard, doneThrough, java.util.Set.of(), clockAfterDone);
        }
        Set<String> writtenAfter = new LinkedHashSet<>();
        for (Item item : items.values()) {
            if (item.state() == State.EMITTED) {
                writtenAfter.add(item.key());
            }
        }
        Item first = items.firstEntry().getValue();
        return new ShardCheckpoint(shard, first.start(), writtenAfter, first.before());
    }
}
