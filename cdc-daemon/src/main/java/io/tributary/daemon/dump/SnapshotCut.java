package io.tributary.daemon.dump;

import io.tributary.core.position.ShardPosition;
import io.tributary.storage.binlog.DurableCut;
import java.util.List;

/**
 * Where shards' binlog positions stand against the global binlog's durable cut ({@link DurableCut}): the
 * decision behind the position a snapshot or a sync point answers (docs/architecture.md, "Snapshots and the
 * stream"). For each shard i with target position {@code p(i)}:
 * <ul>
 * <li>{@link Kind#BEHIND}: some shard's read-through is before its target: the global binlog does not durably hold
 * everything of it up to there yet; wait;</li>
 * <li>{@link Kind#EXACT}: every read-through is at or past its target and no shard's last durable transaction ends
 * past it: up to the cut's mark the global binlog holds of every shard exactly its transactions up to the target;</li>
 * <li>{@link Kind#PASSED}: all reached, but some shard's transaction after its target is already durable (writes
 * ran on): the cut's mark holds more than the targets.</li>
 * </ul>
 * Positions of one shard compare by file name (a base name and a fixed-width number) and offset. Stateless.
 */
final class SnapshotCut {

    enum Kind { BEHIND, EXACT, PASSED }

    /**
     * @param kind  the outcome
     * @param shard for BEHIND the first shard behind, for PASSED the first shard passed; -1 for EXACT
     * @param cut   the cut it was decided on
     */
    record Decision(Kind kind, int shard, DurableCut cut) {
    }

    private SnapshotCut() {
    }

    static Decision decide(List<ShardPosition> targets, DurableCut cut) {
        if (cut.readThrough().size() != targets.size()) {
            throw new IllegalArgumentException("the pipeline reads " + cut.readThrough().size() + " shards, the dump"
                    + " server knows " + targets.size());
        }
        for (int i = 0; i < targets.size(); i++) {
            ShardPosition through = cut.readThrough().get(i);
            if (through == null || compare(through, targets.get(i)) < 0) {
                return new Decision(Kind.BEHIND, i, cut);
            }
        }
        for (int i = 0; i < targets.size(); i++) {
            ShardPosition last = cut.lastTransactionEnd().get(i);
            if (last != null && compare(last, targets.get(i)) > 0) {
                return new Decision(Kind.PASSED, i, cut);
            }
        }
        return new Decision(Kind.EXACT, -1, cut);
    }

    /** Two positions of one shard's binlog. */
    static int compare(ShardPosition a, ShardPosition b) {
        int byFile = a.file().compareTo(b.file());
        return byFile != 0 ? byFile : Long.compare(a.position(), b.position());
    }
}
