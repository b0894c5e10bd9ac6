package io.tributary.test.bench.load;

import io.tributary.test.shard.ShardInfo;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * TPC-C-like import: the initial population of the TPC-C tables (what a TPC-C kit's loader writes before a run),
 * sharded by warehouse id. Shard {@code i} holds database {@code tpcc_<i>} with the nine TPC-C tables; warehouse
 * {@code w} (1-based) and everything that belongs to it (districts, customers, history, orders, new orders, order
 * lines, stock) live on shard {@code (w - 1) % shards}; {@code item} is replicated on every shard. The global
 * binlog shows {@code tpcc.<table>} by the default naming rule.
 *
 * <p>Per warehouse, as TPC-C section 4.3.3.1 populates it at {@code scale} 1: 10 districts, 3000 customers per
 * district with one history row each, 3000 orders per district with 5 to 15 order lines each, the last 900 of them
 * also in new_orders, and a stock row per item (100 000 items). {@code scale} shrinks the item, customer and order
 * counts (not the districts) for smoke runs.
 *
 * <p>Loaded in parallel as TPC-C loaders do: one loader per warehouse and one per shard for its copy of item, each
 * on its own connection, writing multi-row INSERTs of {@link #ROWS_PER_INSERT} rows in transactions of about
 * {@link #ROWS_PER_TRANSACTION} rows. A loader finishes when its part is loaded ({@link Clients.Client#finished}).
 */
public final class TpccLoad {

    public static final int DISTRICTS = 10;
    public static final int ROWS_PER_INSERT = 100;
    public static final int ROWS_PER_TRANSACTION = 1000;
    private static final int ITEMS = 100_000;
    private static final int CUSTOMERS_PER_DISTRICT = 3000;
    private static final int ORDERS_PER_DISTRICT = 3000;
    /** Orders 1 to 70% are delivered (carrier and delivery date set); the rest are new orders. */
    private static final double DELIVERED_SHARE = 0.7;
    private static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION",
        "EING"};
    /** Random letters and digits that text values are cut from (generating each character costs the loaders' CPU). */
    private static final String TEXT;
    private static final String DIGITS;

    static {
        Random r = new Random(42);
        String alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder t = new StringBuilder(16_384);
        StringBuilder d = new StringBuilder(4096);
        for (int i = 0; i < 16_384; i++) {
            t.append(alnum.charAt(r.nextInt(alnum.length())));
        }
        for (int i = 0; i < 4096; i++) {
            d.append((char) ('0' + r.nextInt(10)));
        }
        TEXT = t.toString();
        DIGITS = d.toString();
    }

    /** The tables in creation order, with their DDL (TPC-C clause 1.3 layouts, MySQL types as TPC-C kits use). */
    private static final Map<String, String> TABLES = new LinkedHashMap<>();

    static {
        TABLES.put("warehouse", "w_id SMALLINT NOT NULL, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),"
                + " w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2),"
                + " PRIMARY KEY (w_id)");
        TABLES.put("district", "d_id TINYINT NOT NULL, d_w_id SMALLINT NOT NULL, d_name VARCHAR(10), d_street_1 VARCHAR(20),"
                + " d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4),"
                + " d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id)");
        TABLES.put("customer", "c_id INT NOT NULL, c_d_id TINYINT NOT NULL, c_w_id SMALLINT NOT NULL, c_first VARCHAR(16),"
                + " c_middle CHAR(2), c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20),"
                + " c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since DATETIME,"
                + " c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2),"
                + " c_ytd_payment DECIMAL(12,2), c_payment_cnt SMALLINT, c_delivery_cnt SMALLINT, c_data VARCHAR(500),"
                + " PRIMARY KEY (c_w_id, c_d_id, c_id), KEY idx_customer (c_w_id, c_d_id, c_last, c_first)");
        TABLES.put("history", "h_c_id INT, h_c_d_id TINYINT, h_c_w_id SMALLINT, h_d_id TINYINT, h_w_id SMALLINT,"
                + " h_date DATETIME, h_amount DECIMAL(6,2), h_data VARCHAR(24)");
        TABLES.put("new_orders", "no_o_id INT NOT NULL, no_d_id TINYINT NOT NULL, no_w_id SMALLINT NOT NULL,"
                + " PRIMARY KEY (no_w_id, no_d_id, no_o_id)");
        TABLES.put("orders", "o_id INT NOT NULL, o_d_id TINYINT NOT NULL, o_w_id SMALLINT NOT NULL, o_c_id INT,"
                + " o_entry_d DATETIME, o_carrier_id TINYINT, o_ol_cnt TINYINT, o_all_local TINYINT,"
                + " PRIMARY KEY (o_w_id, o_d_id, o_id), KEY idx_orders (o_w_id, o_d_id, o_c_id, o_id)");
        TABLES.put("order_line", "ol_o_id INT NOT NULL, ol_d_id TINYINT NOT NULL, ol_w_id SMALLINT NOT NULL,"
                + " ol_number TINYINT NOT NULL, ol_i_id INT, ol_supply_w_id SMALLINT, ol_delivery_d DATETIME,"
                + " ol_quantity TINYINT, ol_amount DECIMAL(6,2), ol_dist_info CHAR(24),"
                + " PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)");
        TABLES.put("item", "i_id INT NOT NULL, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50),"
                + " PRIMARY KEY (i_id)");
        TABLES.put("stock", "s_i_id INT NOT NULL, s_w_id SMALLINT NOT NULL, s_quantity SMALLINT, s_dist_01 CHAR(24),"
                + " s_dist_02 CHAR(24), s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24),"
                + " s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd DECIMAL(8,0),"
                + " s_order_cnt SMALLINT, s_remote_cnt SMALLINT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id)");
    }

    private final List<ShardInfo> shards;
    private final int warehouses;
    private final int items;
    private final int customersPerDistrict;
    private final int ordersPerDistrict;

    /**
     * @param warehouses how many warehouses, spread over the shards by id
     * @param scale      share of the TPC-C item, customer and order counts (1 = the standard population)
     */
    public TpccLoad(List<ShardInfo> shards, int warehouses, double scale) {
        if (warehouses < 1) {
            throw new IllegalArgumentException("Invalid value " + warehouses + " for the TPCC warehouses: at least 1");
        }
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("Invalid value " + scale + " for the TPCC scale: above 0, at most 1");
        }
        this.shards = List.copyOf(shards);
        this.warehouses = warehouses;
        this.items = Math.max(1, (int) Math.round(ITEMS * scale));
        this.customersPerDistrict = Math.max(1, (int) Math.round(CUSTOMERS_PER_DISTRICT * scale));
        // every customer places one order, as in TPC-C's population
        this.ordersPerDistrict = Math.max(1, (int) Math.round(ORDERS_PER_DISTRICT * scale));
    }

    /** {@code tpcc_<shard>}: the physical database of shard {@code shard}. */
    public static String database(int shard) {
        return "tpcc_" + shard;
    }

    private ShardInfo shardOf(int warehouse) {
        return shards.get((warehouse - 1) % shards.size());
    }

    /** How many loaders {@link #start} runs: one per warehouse, one per shard for item. */
    public int loaders() {
        return warehouses + shards.size();
    }

    /** What one warehouse holds at this scale, for notes. */
    public String describe() {
        return String.format(java.util.Locale.ROOT, "%d warehouses over %d shards (tpcc_0..%d), per warehouse %d districts,"
                + " %d customers and %d orders per district, %d stock rows; %d items on every shard", warehouses,
                shards.size(), shards.size() - 1, DISTRICTS, customersPerDistrict, ordersPerDistrict, items, items);
    }

    /** Drops and creates {@code tpcc_<i>} with the nine tables on every shard. */
    public void prepare() throws SQLException {
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE IF NOT EXISTS " + database(s.index()));
                for (Map.Entry<String, String> t : TABLES.entrySet()) {
                    String q = database(s.index()) + "." + t.getKey();
                    st.execute("DROP TABLE IF EXISTS " + q);
                    st.execute("CREATE TABLE " + q + " (" + t.getValue() + ") ENGINE=InnoDB");
                }
            }
        }
    }

    /** How many rows the nine tables hold on all shards together (to check the loaders' count against). */
    public long countRows() throws SQLException {
        long n = 0;
        for (ShardInfo s : shards) {
            try (Connection c = s.openAdminConnection(); Statement st = c.createStatement()) {
                for (String t : TABLES.keySet()) {
                    try (java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + database(s.index()) + "." + t)) {
                        rs.next();
                        n += rs.getLong(1);
                    }
                }
            }
        }
        return n;
    }

    /** Starts the loaders; each one ends when its part is loaded. */
    public Clients start(LoadCounters counters) throws SQLException {
        return Clients.start("tpcc-load", loaders(), i -> i < shards.size()
                ? new Loader(shards.get(i), itemChunks(), counters, i)
                : new Loader(shardOf(i - shards.size() + 1), warehouseChunks(i - shards.size() + 1), counters, i),
                counters);
    }

    // ---------------------------------------------------------------- what the loaders write

    /** The rows of one transaction, written into {@link Inserts}. */
    @FunctionalInterface
    private interface Chunk {
        void write(Inserts in, Random r) throws SQLException;
    }

    private Deque<Chunk> itemChunks() {
        Deque<Chunk> chunks = new ArrayDeque<>();
        for (int from = 1; from <= items; from += ROWS_PER_TRANSACTION) {
            int first = from;
            int last = Math.min(items, from + ROWS_PER_TRANSACTION - 1);
            chunks.add((in, r) -> {
                for (int i = first; i <= last; i++) {
                    StringBuilder b = in.row("item");
                    b.append(i).append(',').append(1 + r.nextInt(10_000)).append(',');
                    text(b, r, 14, 24).append(',');
                    decimal(b, 100 + r.nextInt(9901), 2).append(',');
                    text(b, r, 26, 50);
                }
            });
        }
        return chunks;
    }

    private Deque<Chunk> warehouseChunks(int w) {
        Deque<Chunk> chunks = new ArrayDeque<>();
        chunks.add((in, r) -> {
            StringBuilder b = in.row("warehouse");
            b.append(w).append(',');
            address(text(b, r, 6, 10).append(','), r).append(',');
            decimal(b, r.nextInt(2001), 4).append(",300000.00");
            for (int d = 1; d <= DISTRICTS; d++) {
                b = in.row("district");
                b.append(d).append(',').append(w).append(',');
                address(text(b, r, 6, 10).append(','), r).append(',');
                decimal(b, r.nextInt(2001), 4).append(",30000.00,").append(ordersPerDistrict + 1);
            }
        });
        for (int from = 1; from <= items; from += ROWS_PER_TRANSACTION) {
            int first = from;
            int last = Math.min(items, from + ROWS_PER_TRANSACTION - 1);
            chunks.add((in, r) -> {
                for (int i = first; i <= last; i++) {
                    StringBuilder b = in.row("stock");
                    b.append(i).append(',').append(w).append(',').append(10 + r.nextInt(91));
                    for (int d = 0; d < DISTRICTS; d++) {
                        text(b.append(','), r, 24, 24);
                    }
                    text(b.append(",0,0,0,"), r, 26, 50);
                }
            });
        }
        // a customer comes with its history row: half a transaction's rows each
        int customersPerChunk = ROWS_PER_TRANSACTION / 2;
        // an order comes with ~10 order lines and sometimes a new_orders row
        int ordersPerChunk = ROWS_PER_TRANSACTION / 11;
        for (int d = 1; d <= DISTRICTS; d++) {
            int district = d;
            for (int from = 1; from <= customersPerDistrict; from += customersPerChunk) {
                int first = from;
                int last = Math.min(customersPerDistrict, from + customersPerChunk - 1);
                chunks.add((in, r) -> customers(in, r, w, district, first, last));
            }
            int[] customerOf = permutation(ordersPerDistrict, customersPerDistrict, new Random(w * 100L + d));
            for (int from = 1; from <= ordersPerDistrict; from += ordersPerChunk) {
                int first = from;
                int last = Math.min(ordersPerDistrict, from + ordersPerChunk - 1);
                chunks.add((in, r) -> orders(in, r, w, district, first, last, customerOf));
            }
        }
        return chunks;
    }

    private void customers(Inserts in, Random r, int w, int d, int first, int last) throws SQLException {
        for (int c = first; c <= last; c++) {
            StringBuilder b = in.row("customer");
            b.append(c).append(',').append(d).append(',').append(w).append(',');
            text(b, r, 8, 16).append(",'OE','");
            lastName(b, c <= 1000 ? c - 1 : r.nextInt(1000)).append("',");
            address(b, r).append(',');
            digits(b, r, 16).append(",NOW(),").append(r.nextInt(10) == 0 ? "'BC'" : "'GC'").append(",50000.00,");
            decimal(b, r.nextInt(5001), 4).append(",-10.00,10.00,1,0,");
            text(b, r, 300, 500);
            b = in.row("history");
            b.append(c).append(',').append(d).append(',').append(w).append(',').append(d).append(',').append(w)
                    .append(",NOW(),10.00,");
            text(b, r, 12, 24);
        }
    }

    private void orders(Inserts in, Random r, int w, int d, int first, int last, int[] customerOf)
            throws SQLException {
        int delivered = (int) (ordersPerDistrict * DELIVERED_SHARE);
        for (int o = first; o <= last; o++) {
            boolean isDelivered = o <= delivered;
            int lines = 5 + r.nextInt(11);
            StringBuilder b = in.row("orders");
            b.append(o).append(',').append(d).append(',').append(w).append(',').append(customerOf[o - 1])
                    .append(",NOW(),").append(isDelivered ? Integer.toString(1 + r.nextInt(10)) : "NULL").append(',')
                    .append(lines).append(",1");
            for (int l = 1; l <= lines; l++) {
                b = in.row("order_line");
                b.append(o).append(',').append(d).append(',').append(w).append(',').append(l).append(',')
                        .append(1 + r.nextInt(items)).append(',').append(w).append(',')
                        .append(isDelivered ? "NOW()" : "NULL").append(",5,");
                decimal(b, isDelivered ? 0 : 1 + r.nextInt(999_999), 2).append(',');
                text(b, r, 24, 24);
            }
            if (!isDelivered) {
                in.row("new_orders").append(o).append(',').append(d).append(',').append(w);
            }
        }
    }

    /** Customer ids 1..customers for orders 1..orders, each customer once while there are enough (TPC-C's permutation). */
    private static int[] permutation(int orders, int customers, Random r) {
        int[] p = new int[orders];
        for (int i = 0; i < orders; i++) {
            p[i] = 1 + i % customers;
        }
        for (int i = orders - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    // ---------------------------------------------------------------- values

    /** A quoted text of {@code min} to {@code max} letters and digits. */
    private static StringBuilder text(StringBuilder b, Random r, int min, int max) {
        int len = min + (max > min ? r.nextInt(max - min + 1) : 0);
        int at = r.nextInt(TEXT.length() - len);
        return b.append('\'').append(TEXT, at, at + len).append('\'');
    }

    private static StringBuilder digits(StringBuilder b, Random r, int len) {
        int at = r.nextInt(DIGITS.length() - len);
        return b.append('\'').append(DIGITS, at, at + len).append('\'');
    }

    /** Street 1, street 2, city, state, zip (4 random digits then 11111, as TPC-C makes them). */
    private static StringBuilder address(StringBuilder b, Random r) {
        text(b, r, 10, 20).append(',');
        text(b, r, 10, 20).append(',');
        text(b, r, 10, 20).append(",'").append((char) ('A' + r.nextInt(26))).append((char) ('A' + r.nextInt(26)))
                .append("',");
        int at = r.nextInt(DIGITS.length() - 4);
        return b.append('\'').append(DIGITS, at, at + 4).append("11111'");
    }

    /** TPC-C's last name: three syllables chosen by the digits of {@code n} (0 to 999). */
    private static StringBuilder lastName(StringBuilder b, int n) {
        return b.append(SYLLABLES[n / 100]).append(SYLLABLES[n / 10 % 10]).append(SYLLABLES[n % 10]);
    }

    /** {@code unscaled} / 10^{@code scale} as a decimal literal. */
    private static StringBuilder decimal(StringBuilder b, long unscaled, int scale) {
        String digits = Long.toString(unscaled);
        if (digits.length() <= scale) {
            digits = "0".repeat(scale - digits.length() + 1) + digits;
        }
        return b.append(digits, 0, digits.length() - scale).append('.').append(digits, digits.length() - scale,
                digits.length());
    }

    // ---------------------------------------------------------------- the loaders

    /**
     * Multi-row INSERTs for one transaction, per table: a row is appended to its table's pending statement, which is
     * sent once it holds {@link #ROWS_PER_INSERT} rows. Used by one loader thread.
     */
    private static final class Inserts {
        private final Statement st;
        private final String database;
        private final Map<String, StringBuilder> pending = new LinkedHashMap<>();
        private final Map<String, Integer> counts = new LinkedHashMap<>();
        private long rows;

        Inserts(Statement st, String database) {
            this.st = st;
            this.database = database;
        }

        /** A new row of {@code table}: the caller appends its comma-separated values. */
        StringBuilder row(String table) throws SQLException {
            int n = counts.getOrDefault(table, 0);
            if (n == ROWS_PER_INSERT) {
                send(table);
                n = 0;
            }
            StringBuilder b = pending.computeIfAbsent(table, t -> new StringBuilder(ROWS_PER_INSERT * 256));
            b.append(n == 0 ? "INSERT INTO " + database + "." + table + " VALUES (" : "),(");
            counts.put(table, n + 1);
            rows++;
            return b;
        }

        private void send(String table) throws SQLException {
            StringBuilder b = pending.get(table);
            if (counts.getOrDefault(table, 0) > 0) {
                st.executeUpdate(b.append(')').toString());
            }
            b.setLength(0);
            counts.put(table, 0);
        }

        /** Sends what is pending. */
        void flush() throws SQLException {
            for (String table : pending.keySet()) {
                send(table);
            }
        }
    }

    /** Loads its chunks one transaction each; a chunk whose transaction failed (deadlock) is tried again. */
    private static final class Loader implements Clients.Client {
        private final Connection c;
        private final Statement st;
        private final String database;
        private final Deque<Chunk> chunks;
        private final LoadCounters counters;
        private final Random r;

        Loader(ShardInfo shard, Deque<Chunk> chunks, LoadCounters counters, int id) throws SQLException {
            this.c = shard.openAdminConnection();
            this.st = c.createStatement();
            this.database = database(shard.index());
            this.chunks = chunks;
            this.counters = counters;
            this.r = new Random(7000L + id);
            c.setAutoCommit(false);
        }

        @Override
        public void step() throws SQLException {
            Inserts in = new Inserts(st, database);
            try {
                chunks.peek().write(in, r);
                in.flush();
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
            chunks.poll();
            counters.transactions.incrementAndGet();
            counters.rows.addAndGet(in.rows);
        }

        @Override
        public boolean finished() {
            return chunks.isEmpty();
        }

        @Override
        public void close() throws SQLException {
            c.close();
        }
    }
}
