package io.tributary.test.bench;

import java.util.Locale;

/**
 * When the OLTP ladder's shards are saturated. A level (a client count) whose shard transactions per second rise less
 * than {@link #MIN_GAIN} over the level before it (or fall) is the candidate; the next level confirms it when it,
 * too, stays under {@link #MIN_GAIN} over the best level so far, and the ladder stops there. A level that rises again
 * clears the candidate. The shards are then saturated at the level before the candidate: the last one that still
 * added at least {@link #MIN_GAIN}.
 *
 * <p>Levels that could not be measured (NaN) are skipped. Used by one thread.
 */
final class Saturation {

    static final double MIN_GAIN = 0.10;

    /** The rule as the report states it. */
    static final String RULE = String.format(Locale.ROOT, "the shards count as saturated when a level adds less than"
            + " %.0f%% shard TPS over the level before it (or loses), and the next level confirms it, again under %.0f%%"
            + " over the best level so far; the ladder stops at the confirming level", MIN_GAIN * 100, MIN_GAIN * 100);

    private String previousLabel;
    private double previous = Double.NaN;
    private double best = Double.NaN;
    private String peakLabel;
    private double peak;
    private String candidateLabel;
    private double candidateGain;
    private String confirmedLabel;
    private double confirmedGain;
    private String lastLabel;
    private double lastGain = Double.NaN;

    /** Records the next level; returns true when it confirms saturation (the ladder stops). */
    boolean add(String label, double shardTps) {
        if (Double.isNaN(shardTps) || confirmedLabel != null) {
            return false;
        }
        boolean confirmed = false;
        if (!Double.isNaN(previous)) {
            double gain = shardTps / previous - 1;
            lastLabel = label;
            lastGain = gain;
            if (candidateLabel != null) {
                double overBest = shardTps / best - 1;
                if (overBest < MIN_GAIN) {
                    confirmedLabel = label;
                    confirmedGain = overBest;
                    confirmed = true;
                } else {
                    candidateLabel = null;
                }
            } else if (gain < MIN_GAIN) {
                candidateLabel = label;
                candidateGain = gain;
                peakLabel = previousLabel;
                peak = previous;
            }
        }
        previousLabel = label;
        previous = shardTps;
        best = Double.isNaN(best) ? shardTps : Math.max(best, shardTps);
        return confirmed;
    }

    /** Whether the ladder found its saturation. */
    boolean saturated() {
        return confirmedLabel != null;
    }

    /** What the ladder found, in a sentence for the report. */
    String verdict() {
        if (confirmedLabel != null) {
            return String.format(Locale.ROOT, "saturated at %s (%,.0f shard TPS): %s added %+.1f%% over it, %s %+.1f%% over"
                    + " the best level before it", peakLabel, peak, candidateLabel, candidateGain * 100, confirmedLabel,
                    confirmedGain * 100);
        }
        if (candidateLabel != null) {
            return String.format(Locale.ROOT, "possibly saturated at %s (%,.0f shard TPS): %s added %+.1f%% over it;"
                    + " no further level to confirm", peakLabel, peak, candidateLabel, candidateGain * 100);
        }
        if (lastLabel == null) {
            return "not enough measured levels to tell";
        }
        return String.format(Locale.ROOT, "not saturated up to %s: it added %+.1f%% shard TPS over the level before it",
                lastLabel, lastGain * 100);
    }
}
