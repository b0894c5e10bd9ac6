package io.tributary.storage.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogFlavor;
import io.tributary.core.schema.LogicalSchema;
import io.tributary.core.schema.SchemaChange;
import io.tributary.core.schema.SchemaDdl;
import io.tributary.core.schema.TableName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The schema history file: entries read back, cut to the checkpoint, a torn tail dropped, a damaged entry refused. */
class SchemaHistoryTest {
    private static final BinlogFlavor FLAVOR = BinlogFlavor.MARIADB;
    private final SchemaDdl ddl = new SchemaDdl(FLAVOR);

    @TempDir
    Path dir;

    private SchemaChange change(LogicalSchema before, String db, String sql) {
        SchemaDdl.Applied a = (SchemaDdl.Applied) ddl.apply(before, db, sql);
        return new SchemaChange(db, sql, a.schema(), a.tables(), a.databases());
    }

    /** Snapshot at 0 (shop.a), DDL 1 creates shop.b, 2 renames it to c, 3 drops database other. */
    private Path write() throws IOException {
        Path f = dir.resolve("schema.history");
        SchemaHistory h = SchemaHistory.open(f, FLAVOR, 0, true, true);
        LogicalSchema s = SchemaHistory.emptySchema(FLAVOR);
        s = change(s, "", "create database shop").after();
        s = change(s, "", "create database other character set latin1").after();
        s = change(s, "shop", "create table a (id int primary key, note text comment 'a ''quoted'' note')").after();
        h.snapshot(0, "binlog.000001", 256, s);
        SchemaChange c1 = change(s, "shop", "create table b (x varchar(10) not null, key (x))");
        h.append(1, "binlog.000001", 400, c1);
        SchemaChange c2 = change(c1.after(), "shop", "rename table b to c");
        h.append(2, "binlog.000001", 500, c2);
        SchemaChange c3 = change(c2.after(), "", "drop database other");
        h.append(3, "binlog.000002", 300, c3);
        return f;
    }

    @Test
    void shouldReadBackEveryVersion() throws IOException {
        Path f = write();
        SchemaHistory h = SchemaHistory.open(f, FLAVOR, 3, false, true);
        LogicalSchema s = h.latest();
        assertThat(s.databases().keySet()).containsExactly("shop");
        assertThat(s.tables().keySet()).containsExactly(new TableName("shop", "a"), new TableName("shop", "c"));
        assertThat(s.table(new TableName("shop", "a")).orElseThrow().column("note").orElseThrow().comment())
                .isEqualTo("a 'quoted' note");
        assertThat(h.at(1).tables().keySet()).contains(new TableName("shop", "b"));
        assertThat(h.at(0).database("other").orElseThrow().charset()).isEqualTo("latin1");
        assertThat(h.durableAt(2).tables().keySet()).contains(new TableName("shop", "c"));
        assertThat(h.at(0).tables().keySet()).as("versions before the durable one dropped from memory")
                .contains(new TableName("shop", "c"));
    }

    @Test
    void shouldCutEntriesBeyondTheCheckpoint() throws IOException {
        Path f = write();
        long before = Files.size(f);
        SchemaHistory h = SchemaHistory.open(f, FLAVOR, 1, false, true);
        assertThat(h.latest().tables().keySet()).containsExactly(new TableName("shop", "a"), new TableName("shop", "b"));
        assertThat(h.actions()).anyMatch(a -> a.contains("dropped 2 entries after GTID sequence 1"));
        assertThat(Files.size(f)).isLessThan(before);
        // the file itself was cut: a reopen with a later checkpoint does not bring them back
        assertThat(SchemaHistory.open(f, FLAVOR, 3, false, true).latest().tables()).hasSize(2);
    }

    @Test
    void shouldDropATornLastLineAndRefuseADamagedEarlierOne() throws IOException {
        Path f = write();
        Files.writeString(f, "D 4 binlog.000002 900 shop ALTER", StandardOpenOption.APPEND);
        SchemaHistory h = SchemaHistory.open(f, FLAVOR, 4, false, true);
        assertThat(h.actions()).anyMatch(a -> a.contains("torn last line"));
        assertThat(h.latest().tables()).hasSize(2);

        String text = Files.readString(f, StandardCharsets.UTF_8);
        Files.writeString(f, text.replaceFirst("binlog.000001 400", "binlog.000001 401"));
        assertThatThrownBy(() -> SchemaHistory.open(f, FLAVOR, 4, false, true))
                .isInstanceOf(IOException.class).hasMessageContaining("damaged at line 2").hasMessageContaining("CRC32");
    }

    @Test
    void shouldStartEmptyWhenTheBinlogStartsFresh() throws IOException {
        Path f = write();
        SchemaHistory h = SchemaHistory.open(f, FLAVOR, 0, true, true);
        assertThat(h.seeded()).isFalse();
        assertThat(Files.exists(f)).isFalse();
    }
}
