package io.tributary.daemon.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MergedRowsTest {

    /** Rows of (id, shard tag), as a shard returns them. */
    private static final class ListCursor implements RowCursor {
        private final List<byte[][]> rows;
        private final String name;
        private final int failAfter;
        private int at;

        ListCursor(String name, List<byte[][]> rows, int failAfter) {
            this.name = name;
            this.rows = rows;
            this.failAfter = failAfter;
        }

        @Override
        public byte[][] next() throws SQLException {
            if (at == failAfter) {
                throw new SQLException("Connection reset");
            }
            return at < rows.size() ? rows.get(at++) : null;
        }

        @Override
        public String source() {
            return name;
        }
    }

    private static byte[] b(Object v) {
        return v == null ? null : v.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[][] row(Object id, String tag) {
        return new byte[][] {b(id), b(tag)};
    }

    private static List<byte[][]> one(byte[][] row) {
        List<byte[][]> rows = new ArrayList<>();
        rows.add(row);
        return rows;
    }

    private static List<String> drain(MergedRows m) {
        List<String> out = new ArrayList<>();
        byte[][] r;
        while ((r = m.next()) != null) {
            out.add((r[0] == null ? "NULL" : new String(r[0], StandardCharsets.UTF_8)) + "/"
                    + new String(r[1], StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Comparator<byte[][]> byId(boolean ascending) {
        return MergedRows.rowOrder(new int[] {0}, new ValueOrder[] {ValueOrder.INTEGER}, new boolean[] {ascending});
    }

    @Test
    void shouldMergeOrderedShardStreamsIntoOneSortedCompleteStream() {
        Random random = new Random(17);
        for (int round = 0; round < 200; round++) {
            int shards = 1 + random.nextInt(5);
            List<RowCursor> cursors = new ArrayList<>();
            List<Long> all = new ArrayList<>();
            for (int s = 0; s < shards; s++) {
                List<Long> ids = new ArrayList<>();
                int n = random.nextInt(50);
                for (int i = 0; i < n; i++) {
                    ids.add(random.nextLong() % 1_000_000_000_000L * (random.nextBoolean() ? 1 : 1_000_000L));
                }
                ids.sort(null);
                all.addAll(ids);
                List<byte[][]> rows = new ArrayList<>();
                ids.forEach(id -> rows.add(row(id, "s" + shards)));
                cursors.add(new ListCursor("s" + s, rows, -1));
            }
            all.sort(null);
            List<String> merged = drain(MergedRows.ordered(cursors, byId(true)));
            assertThat(merged).hasSize(all.size());
            for (int i = 0; i < all.size(); i++) {
                assertThat(merged.get(i)).startsWith(all.get(i) + "/");
            }
        }
    }

    @Test
    void shouldBreakTiesByShardOrderAndPutNullsFirstAscendingAndLastDescending() {
        List<RowCursor> asc = List.of(
                new ListCursor("s0", List.of(row(null, "s0"), row(2, "s0"), row(10, "s0")), -1),
                new ListCursor("s1", List.of(row(null, "s1"), row(2, "s1"), row(3, "s1")), -1));
        assertThat(drain(MergedRows.ordered(asc, byId(true))))
                .containsExactly("NULL/s0", "NULL/s1", "2/s0", "2/s1", "3/s1", "10/s0");
        List<RowCursor> desc = List.of(
                new ListCursor("s0", List.of(row(10, "s0"), row(2, "s0"), row(null, "s0")), -1),
                new ListCursor("s1", List.of(row(3, "s1"), row(2, "s1"), row(null, "s1")), -1));
        assertThat(drain(MergedRows.ordered(desc, byId(false))))
                .containsExactly("10/s0", "3/s1", "2/s0", "2/s1", "NULL/s0", "NULL/s1");
    }

    @Test
    void shouldApplyOffsetAndLimitToTheMergedStream() {
        List<RowCursor> cursors = List.of(
                new ListCursor("s0", List.of(row(1, "s0"), row(4, "s0"), row(5, "s0")), -1),
                new ListCursor("s1", List.of(row(2, "s1"), row(3, "s1"), row(6, "s1")), -1));
        MergedRows m = MergedRows.ordered(cursors, byId(true)).window(2, 3);
        assertThat(drain(m)).containsExactly("3/s1", "4/s0", "5/s0");
        assertThat(m.limitReached()).isTrue();
        MergedRows past = MergedRows.ordered(List.of(new ListCursor("s0", one(row(1, "s0")), -1)), byId(true))
                .window(5, 3);
        assertThat(drain(past)).isEmpty();
        assertThat(past.limitReached()).isFalse();
    }

    @Test
    void shouldConcatenateShardsInOrderWithoutOrderBy() {
        List<RowCursor> cursors = List.of(new ListCursor("s0", List.of(row(9, "s0"), row(1, "s0")), -1),
                new ListCursor("s1", List.of(), -1), new ListCursor("s2", one(row(5, "s2")), -1));
        assertThat(drain(MergedRows.concatenated(cursors))).containsExactly("9/s0", "1/s0", "5/s2");
        List<RowCursor> again = List.of(new ListCursor("s0", List.of(row(9, "s0"), row(1, "s0")), -1),
                new ListCursor("s2", one(row(5, "s2")), -1));
        assertThat(drain(MergedRows.concatenated(again).window(1, 1))).containsExactly("1/s0");
    }

    @Test
    void shouldNameTheShardThatFailsMidStream() {
        List<RowCursor> cursors = List.of(new ListCursor("s0", List.of(row(1, "s0"), row(3, "s0")), -1),
                new ListCursor("shard s1 (shop_01.orders_0002)", List.of(row(2, "s1"), row(4, "s1")), 1));
        MergedRows m = MergedRows.ordered(cursors, byId(true));
        assertThat(m.next()[0]).isEqualTo(b(1));
        assertThatThrownBy(() -> {
            while (m.next() != null) {
                // read on until the failing shard is asked for its next row
            }
        }).isInstanceOfSatisfying(MergedRows.ShardReadFailure.class, e -> {
            assertThat(e.source()).isEqualTo("shard s1 (shop_01.orders_0002)");
            assertThat(e.getMessage()).contains("shard s1 (shop_01.orders_0002)").contains("Connection reset");
        });
    }
}
