package io.tributary.daemon.runtime;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.dump.DumpServer;
import io.tributary.storage.binlog.GlobalBinlogWriter;
import io.tributary.storage.binlog.WriteCounters;
import io.tributary.storage.buffer.TransactionBuffer;
import io.tributary.storage.merge.MergeStage;
import io.tributary.storage.merge.TransactionMerger;
import io.tributary.storage.pipeline.GlobalBinlogPipeline;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Tributary's meters (Micrometer; Prometheus names in brackets). Counters are monotonic and rates come from
 * them ({@code rate()} in Prometheus, deltas in the status line):
 * <ul>
 * <li>{@code tributary.binlog.events} [tributary_binlog_events_total]: events written to the global binlog (EPS);</li>
 * <li>{@code tributary.binlog.dml.events} [..._dml_events_total]: of those, row events (DML EPS);</li>
 * <li>{@code tributary.binlog.bytes} [..._bytes_total]: bytes written (BPS);</li>
 * <li>{@code tributary.binlog.transactions} [..._transactions_total]: global transactions (TPS);</li>
 * <li>{@code tributary.binlog.files} [..._files_total]: files started by rotation (FPM);</li>
 * <li>{@code tributary.reader.reconnects{shard}}: reconnections of each shard reader.</li>
 * </ul>
 * Gauges: {@code tributary.delay{shard}} and {@code tributary.delay.max} (ms; how far behind the shard's
 * commits the durable global binlog is, measured to within one heartbeat interval), {@code
 * tributary.buffer.bytes{where=memory|spilled}}, {@code tributary.buffer.transactions{state=open|spilled}},
 * {@code tributary.spill.store.bytes} (RocksDB), {@code tributary.dump.connections}, {@code
 * tributary.dump.subscribers}, {@code tributary.dump.subscriber.backlog.max} (bytes queued for the most lagging
 * subscriber), the counters {@code tributary.dump.events.from.files|cache}, {@code
 * tributary.reader.streaming{shard}} (1 while streaming), and how far behind the shards the daemon is
 * ({@link ShardBacklog}): {@code tributary.shard.behind.bytes{shard}}, {@code tributary.shard.behind{shard}}
 * [tributary_shard_behind_seconds], {@code tributary.catchup} (1 while catching up) and {@code tributary.catchup.eta}
 * [tributary_catchup_eta_seconds]. The timer {@code tributary.commit.delay{shard}}
 * [tributary_commit_delay_seconds] records, per shard transaction, shard commit to durable global binlog,
 * as a histogram with the fixed buckets {@link #DELAY_BUCKETS}.
 *
 * <p>Bound once the runtime has started ({@link #bind}); until then gauges read NaN and counters 0.
 */
public final class TributaryMetrics implements MergeStage.DelayListener {

    /**
     * The delay histogram's bucket bounds ({@code _bucket{le}}). A histogram, not client-side quantiles: a p99
     * over any window and across shards or instances is {@code histogram_quantile(0.99, sum by (le)
     * (rate(tributary_commit_delay_seconds_bucket[window])))}, and "p99 under 1 s" is read exactly off the 1 s
     * bucket. (Quantiles computed in the daemon hold whatever their own window held, e.g. the start's catch-up,
     * and cannot be added up.)
     */
    static final Duration[] DELAY_BUCKETS = {Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofMillis(750), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)};

    private final MeterRegistry registry;
    private final List<ShardConfig> shards;
    private final Timer[] delays;
    private volatile TributaryRuntime runtime;

    public TributaryMetrics(MeterRegistry registry, List<ShardConfig> shards) {
        this.registry = registry;
        this.shards = List.copyOf(shards);
        this.delays = new Timer[shards.size()];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = Timer.builder("tributary.commit.delay")
                    .description("Shard commit to durable global binlog, per shard transaction")
                    .tag("shard", shards.get(i).name())
                    .serviceLevelObjectives(DELAY_BUCKETS)
                    .register(registry);
        }
        counter("tributary.binlog.events", "Events written to the global binlog", WriteCounters::events);
        counter("tributary.binlog.dml.events", "Row (DML) events written to the global binlog", WriteCounters::rowsEvents);
        FunctionCounter.builder("tributary.binlog.bytes", this, m -> m.counters().bytes())
                .description("Bytes written to the global binlog").baseUnit("bytes").register(registry);
        counter("tributary.binlog.transactions", "Global transactions written", WriteCounters::transactions);
        counter("tributary.binlog.files", "Global binlog files started by rotation", WriteCounters::filesCreated);
        for (int i = 0; i < shards.size(); i++) {
            int shard = i;
            Tags tags = Tags.of("shard", shards.get(i).name());
            FunctionCounter.builder("tributary.reader.reconnects", this, m -> m.reconnects(shard))
                    .description("Reconnections of the shard's reader").tags(tags).register(registry);
            Gauge.builder("tributary.delay", this, m -> m.delayMillis(shard)).tags(tags).baseUnit("milliseconds")
                    .description("How far the durable global binlog is behind the shard's commits").register(registry);
            Gauge.builder("tributary.reader.streaming", this, m -> m.streaming(shard)).tags(tags)
                    .description("1 while the shard's reader streams its binlog, else 0").register(registry);
            Gauge.builder("tributary.shard.behind.bytes", this, m -> m.behind(shard, b -> b.bytes() < 0 ? Double.NaN
                    : b.bytes())).tags(tags).baseUnit("bytes")
                    .description("Shard binlog bytes not yet durable in the global binlog (NaN when unknown)")
                    .register(registry);
            Gauge.builder("tributary.shard.behind", this, m -> m.behind(shard, ShardBacklog.Behind::seconds)).tags(tags)
                    .baseUnit("seconds").description("How far the shard's durable commits are behind the clock while it has"
                            + " bytes behind; 0 when the global binlog holds all of its binlog").register(registry);
        }
        Gauge.builder("tributary.catchup", this, m -> {
            ShardBacklog b = m.backlog();
            return b == null ? Double.NaN : b.catchingUp() ? 1 : 0;
        }).description("1 while the daemon is catching up (a shard more than "
                + ShardBacklog.CATCHING_UP_MILLIS / 1000 + " s behind with bytes to read), else 0").register(registry);
        Gauge.builder("tributary.catchup.eta", this, m -> {
            ShardBacklog b = m.backlog();
            return b == null ? Double.NaN : b.etaSeconds();
        }).baseUnit("seconds").description("Estimated time until the shards catching up have been read (NaN when none"
                + " is, or the backlog is not falling)").register(registry);
        Gauge.builder("tributary.delay.max", this, TributaryMetrics::maxDelayMillis).baseUnit("milliseconds")
                .description("The largest shard delay").register(registry);
        gauge("tributary.buffer.bytes", Tags.of("where", "memory"), "bytes", b -> b.memoryUsed());
        gauge("tributary.buffer.bytes", Tags.of("where", "spilled"), "bytes", b -> b.spilledBytes());
        gauge("tributary.buffer.transactions", Tags.of("state", "open"), null, b -> b.openTransactions());
        gauge("tributary.buffer.transactions", Tags.of("state", "spilled"), null, b -> b.spilledTransactions());
        gauge("tributary.spill.store.bytes", Tags.empty(), "bytes", b -> b.spillStoreBytes());
        dumpGauge("tributary.dump.connections", null, "Open connections to the dump server (subscribers and others)",
                DumpServer::connectionCount);
        dumpGauge("tributary.dump.subscribers", null, "Connections receiving the global binlog (COM_BINLOG_DUMP / _GTID)",
                DumpServer::subscriberCount);
        dumpGauge("tributary.dump.subscriber.backlog.max", "bytes", "Bytes queued in memory for the most lagging"
                + " subscriber (bounded by dump.subscriber.buffer; a subscriber further behind reads the files)",
                DumpServer::largestSubscriberBacklogBytes);
        for (TransactionMerger.SchemaOutcome outcome : TransactionMerger.SchemaOutcome.values()) {
            FunctionCounter.builder("tributary.schema.ddl", this, m -> {
                TributaryRuntime r = m.runtime;
                GlobalBinlogPipeline p = r == null ? null : r.pipeline();
                return p == null ? 0 : p.schemaOutcomes(outcome);
            }).tags(Tags.of("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT)))
                    .description("DDL statements written to the global binlog, by what they did to the logical schema:"
                            + " applied, ignored (views, grants), reread (not applicable; read again from the shard),"
                            + " failed (not applicable; the tables keep their definitions)").register(registry);
        }
        dumpCounter("tributary.dump.events.from.files",
                "Events subscribers read from the files (catching up); tailing ones read the cache",
                DumpServer::eventsReadFromFiles);
        dumpCounter("tributary.dump.events.from.cache", "Events sent to subscribers from the shared tail cache",
                DumpServer::eventsServedFromCache);
    }

    private void counter(String name, String description, java.util.function.ToLongFunction<WriteCounters> f) {
        FunctionCounter.builder(name, this, m -> f.applyAsLong(m.counters())).description(description).register(registry);
    }

    private DumpServer dump() {
        TributaryRuntime r = runtime;
        return r == null ? null : r.dump();
    }

    private void dumpGauge(String name, String unit, String description, ToDoubleFunction<DumpServer> f) {
        Gauge.Builder<TributaryMetrics> b = Gauge.builder(name, this, m -> {
            DumpServer d = m.dump();
            return d == null ? Double.NaN : f.applyAsDouble(d);
        }).description(description);
        if (unit != null) {
            b.baseUnit(unit);
        }
        b.register(registry);
    }

    private void dumpCounter(String name, String description, java.util.function.ToLongFunction<DumpServer> f) {
        FunctionCounter.builder(name, this, m -> {
            DumpServer d = m.dump();
            return d == null ? 0 : f.applyAsLong(d);
        }).description(description).register(registry);
    }

    private void gauge(String name, Tags tags, String unit, ToDoubleFunction<TransactionBuffer> f) {
        Gauge.Builder<TributaryMetrics> b = Gauge.builder(name, this, m -> {
            TributaryRuntime r = m.runtime;
            TransactionBuffer buffer = r == null ? null : r.buffer();
            return buffer == null ? Double.NaN : f.applyAsDouble(buffer);
        }).tags(tags);
        if (unit != null) {
            b.baseUnit(unit);
        }
        b.register(registry);
    }

    /** Starts reading the runtime's components. */
    public void bind(TributaryRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void durable(int shard, long commitMillis, long durableMillis) {
        if (shard < delays.length && commitMillis > 0) {
            delays[shard].record(Math.max(0, durableMillis - commitMillis), TimeUnit.MILLISECONDS);
        }
    }

    /** The writer's counters (zero before it opens). */
    public WriteCounters counters() {
        TributaryRuntime r = runtime;
        GlobalBinlogWriter w = r == null ? null : r.writer();
        return w == null ? new WriteCounters(0, 0, 0, 0, 0) : w.counters();
    }

    private double reconnects(int shard) {
        GlobalBinlogPipeline p = pipeline();
        return p == null ? 0 : Math.max(0, p.readerConnections(shard) - 1);
    }

    private double streaming(int shard) {
        GlobalBinlogPipeline p = pipeline();
        return p == null ? Double.NaN : p.readerState(shard) == io.tributary.core.reader.ShardReader.State.STREAMING ? 1 : 0;
    }

    /** Shard {@code shard}'s current delay in ms, NaN before its first heartbeat went through. */
    public double delayMillis(int shard) {
        GlobalBinlogPipeline p = pipeline();
        long settled = p == null ? 0 : p.settledMillis(shard);
        return settled == 0 ? Double.NaN : Math.max(0, System.currentTimeMillis() - settled);
    }

    public double maxDelayMillis() {
        double max = Double.NaN;
        for (int i = 0; i < shards.size(); i++) {
            double d = delayMillis(i);
            if (!Double.isNaN(d) && (Double.isNaN(max) || d > max)) {
                max = d;
            }
        }
        return max;
    }

    /** The per-transaction delay distribution of shard {@code shard}. */
    public Timer commitDelay(int shard) {
        return delays[shard];
    }

    private ShardBacklog backlog() {
        TributaryRuntime r = runtime;
        return r == null ? null : r.backlog();
    }

    private double behind(int shard, ToDoubleFunction<ShardBacklog.Behind> f) {
        ShardBacklog b = backlog();
        return b == null ? Double.NaN : f.applyAsDouble(b.current().get(shard));
    }

    private GlobalBinlogPipeline pipeline() {
        TributaryRuntime r = runtime;
        return r == null ? null : r.pipeline();
    }

    Supplier<TributaryRuntime> runtime() {
        return () -> runtime;
    }
}
