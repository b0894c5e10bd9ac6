package io.tributary.daemon.dump;

import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The union of the shards' row streams as one stream, never holding more than one row per stream: either one stream
 * after the other ({@link #concatenated}), or, when every stream is ordered by the same key, a k-way merge
 * ({@link #ordered}): a priority queue holds the head row of each stream and yields the least, then refills from
 * that stream. Rows with equal keys come in stream order (then in each stream's own order), so the output is the
 * same for the same shard contents. {@code OFFSET}/{@code LIMIT} apply to the merged stream ({@link #window}).
 *
 * <p>A stream that fails raises {@link ShardReadFailure} naming it. One thread.
 */
final class MergedRows {

    private final List<RowCursor> cursors;
    private final PriorityQueue<Head> heads;
    private int current;
    private boolean started;
    private long skip;
    private long remaining = Long.MAX_VALUE;

    private record Head(byte[][] row, int stream) {
    }

    private MergedRows(List<RowCursor> cursors, Comparator<byte[][]> order) {
        this.cursors = List.copyOf(cursors);
        this.heads = order == null ? null : new PriorityQueue<>(Math.max(1, cursors.size()),
                Comparator.<Head, byte[][]>comparing(Head::row, order).thenComparingInt(Head::stream));
    }

    /** One stream after the other, in list order. */
    static MergedRows concatenated(List<RowCursor> cursors) {
        return new MergedRows(cursors, null);
    }

    /** The merge of streams each ordered by {@code order}. */
    static MergedRows ordered(List<RowCursor> cursors, Comparator<byte[][]> order) {
        return new MergedRows(cursors, order);
    }

    /** Skips the first {@code offset} rows and ends after {@code limit} more ({@code LIMIT limit OFFSET offset}). */
    MergedRows window(long offset, long limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException("negative OFFSET " + offset + " or LIMIT " + limit);
        }
        this.skip = offset;
        this.remaining = limit;
        return this;
    }

    /** The next row of the union, or null at its end (or once the LIMIT is reached). */
    byte[][] next() {
        while (skip > 0) {
            if (nextOfUnion() == null) {
                skip = 0;
                return null;
            }
            skip--;
        }
        if (remaining == 0) {
            return null;
        }
        byte[][] row = nextOfUnion();
        if (row != null) {
            remaining--;
        }
        return row;
    }

    /** Whether the LIMIT stopped the stream before its sources ended. */
    boolean limitReached() {
        return remaining == 0;
    }

    private byte[][] nextOfUnion() {
        if (heads == null) {
            while (current < cursors.size()) {
                byte[][] row = read(current);
                if (row != null) {
                    return row;
                }
                current++;
            }
            return null;
        }
        if (!started) {
            started = true;
            for (int i = 0; i < cursors.size(); i++) {
                byte[][] row = read(i);
                if (row != null) {
                    heads.add(new Head(row, i));
                }
            }
        }
        Head least = heads.poll();
        if (least == null) {
            return null;
        }
        byte[][] refill = read(least.stream());
        if (refill != null) {
            heads.add(new Head(refill, least.stream()));
        }
        return least.row();
    }

    private byte[][] read(int stream) {
        RowCursor c = cursors.get(stream);
        try {
            return c.next();
        } catch (SQLException e) {
            throw new ShardReadFailure(c.source(), e);
        }
    }

    /**
     * The row comparator of an {@code ORDER BY}: key {@code i} is value {@code keyColumns[i]} of the row, compared
     * by {@code orders[i]}, ascending or not.
     */
    static Comparator<byte[][]> rowOrder(int[] keyColumns, ValueOrder[] orders, boolean[] ascending) {
        Comparator<byte[][]> order = null;
        for (int i = 0; i < keyColumns.length; i++) {
            int column = keyColumns[i];
            Comparator<byte[][]> next = Comparator.comparing(r -> r[column], orders[i].direction(ascending[i]));
            order = order == null ? next : order.thenComparing(next);
        }
        return order == null ? (a, b) -> 0 : order;
    }

    /** A shard stream that failed: its source and the driver's error. */
    static final class ShardReadFailure extends RuntimeException {
        private final String source;

        ShardReadFailure(String source, SQLException cause) {
            super("reading " + source + " failed: " + cause.getMessage(), cause);
            this.source = source;
        }

        String source() {
            return source;
        }
    }
}
