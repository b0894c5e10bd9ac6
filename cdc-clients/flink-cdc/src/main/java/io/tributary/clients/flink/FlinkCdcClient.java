package io.tributary.clients.flink;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.cdc.connectors.mysql.source.MySqlSource;
import org.apache.flink.cdc.connectors.mysql.table.StartupOptions;
import org.apache.flink.cdc.debezium.JsonDebeziumDeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.PrintSinkFunction;

/**
 * A Flink job as a user writes one with Flink CDC's MySQL source (the incremental-snapshot source of the DataStream
 * API, the same the {@code mysql-cdc} SQL connector builds): it starts at the server's latest offset
 * ({@code scan.startup.mode=latest-offset}), or with a snapshot of the table read in primary-key chunks
 * ({@code initial}), and prints every change as Debezium JSON, one line each, to stdout. It runs on a local
 * mini-cluster, parallelism 1, until it is killed.
 *
 * <p>Arguments: host port user password database table server-id [startup-mode], where {@code database} and
 * {@code table} are the source's {@code database-name} and {@code table-name} ({@code table} as {@code db.table},
 * regular expressions allowed) and {@code startup-mode} is {@code latest-offset} (the default) or {@code initial}.
 */
public final class FlinkCdcClient {

    private FlinkCdcClient() {
    }

    public static void main(String[] args) throws Exception {
        MySqlSource<String> source = MySqlSource.<String>builder()
                .hostname(args[0])
                .port(Integer.parseInt(args[1]))
                .username(args[2])
                .password(args[3])
                .databaseList(args[4])
                .tableList(args[5])
                .serverId(args[6])
                .startupOptions(startup(args.length > 7 ? args[7] : "latest-offset"))
                .deserializer(new JsonDebeziumDeserializationSchema())
                .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.enableCheckpointing(2000);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "Flink CDC MySQL source")
                .addSink(new PrintSinkFunction<>())
                .name("stdout");
        env.execute("tributary-flink-cdc-client");
    }

    private static StartupOptions startup(String mode) {
        return switch (mode) {
            case "latest-offset" -> StartupOptions.latest();
            case "initial" -> StartupOptions.initial();
            default -> throw new IllegalArgumentException("Invalid startup mode " + mode
                    + ": allowed are latest-offset and initial");
        };
    }
}
