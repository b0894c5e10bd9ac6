package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.core.event.BinlogEvent;
import io.tributary.core.event.TableMapEvent;
import io.tributary.core.transaction.GlobalEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class GlobalTableRegistryTest {

    private PhysicalTables tables;
    private final List<LayoutConflict> reported = new ArrayList<>();
    private GlobalTableRegistry registry;

    @BeforeEach
    void setUp() {
        tables = PhysicalTables.load();
        registry = new GlobalTableRegistry(LogicalNames.defaults(), reported::add);
    }

    @Test
    void physicalTablesOfOneLogicalTableShareOneGlobalIdAndTheirRowsFollowIt() {
        BinlogEvent s0 = PhysicalTables.renamed(tables.tableMapA, 70, "shop_00", "orders_0000");
        BinlogEvent s1 = PhysicalTables.renamed(tables.tableMapA, 1234, "shop_01", "orders_0005");
        GlobalEvent.TableMap m0 = registry.tableMap("shard-0", s0);
        GlobalEvent.TableMap m1 = registry.tableMap("shard-1", s1);
        assertThat(m0.database()).isEqualTo("shop");
        assertThat(m0.table()).isEqualTo("orders");
        assertThat(m1.tableId()).isEqualTo(m0.tableId()).isPositive();
        assertThat(m1.source()).isSameAs(s1);
        assertThat(registry.rows("shard-1", PhysicalTables.rows(tables.rowsA, 1234)).tableId()).isEqualTo(m0.tableId());
        assertThat(registry.rows("shard-0", PhysicalTables.rows(tables.rowsA, 70)).tableId()).isEqualTo(m0.tableId());
        assertThat(reported).isEmpty();
    }

    @Test
    void differingLayoutsAreReportedWithBothAndNotMerged() {
        long first = registry.tableMap("shard-0", PhysicalTables.renamed(tables.tableMapA, 70, "shop_00", "orders_0000"))
                .tableId();
        GlobalEvent.TableMap other = registry.tableMap("shard-2",
                PhysicalTables.renamed(tables.tableMapB, 71, "shop_02", "orders_0002"));
        assertThat(other.tableId()).isNotEqualTo(first);
        assertThat(other.table()).isEqualTo("orders");
        assertThat(reported).hasSize(1);
        LayoutConflict c = reported.get(0);
        assertThat(c.table()).isEqualTo(new LogicalTable("shop", "orders"));
        assertThat(c.firstLayout()).isEqualTo(ColumnLayout.of(tables.tableMapA.body(TableMapEvent.class)));
        assertThat(c.layout()).isEqualTo(ColumnLayout.of(tables.tableMapB.body(TableMapEvent.class)));
        assertThat(c.message()).startsWith("logical table shop.orders: shard-2 shop_02.orders_0002 has columns ")
                .contains("but shard-0 shop_00.orders_0000 has ", "not merged: kept as table id " + other.tableId() + " beside table id " + first);
        // Seen again, the known layouts keep their ids and are not reported again.
        registry.tableMap("shard-2", PhysicalTables.renamed(tables.tableMapB, 72, "shop_02", "orders_0002"));
        assertThat(registry.tableMap("shard-1", PhysicalTables.renamed(tables.tableMapA, 9, "shop_01", "orders_0001"))
                .tableId()).isEqualTo(first);
        assertThat(registry.conflicts()).hasSize(1);
    }

    @Test
    void aSchemaChangeRollingOverTheShardsIsReportedOnceAndConverges() {
        registry.tableMap("s0", PhysicalTables.renamed(tables.tableMapA, 1, "shop_00", "orders_00"));
        registry.tableMap("s1", PhysicalTables.renamed(tables.tableMapA, 1, "shop_01", "orders_01"));
        long altered0 = registry.tableMap("s0", PhysicalTables.renamed(tables.tableMapB, 2, "shop_00", "orders_00")).tableId();
        assertThat(reported).as("s0 altered, s1 not yet").hasSize(1);
        assertThat(reported.get(0).firstSource()).isEqualTo("s1 shop_01.orders_01");
        long altered1 = registry.tableMap("s1", PhysicalTables.renamed(tables.tableMapB, 2, "shop_01", "orders_01")).tableId();
        registry.tableMap("s0", PhysicalTables.renamed(tables.tableMapB, 2, "shop_00", "orders_00"));
        assertThat(altered1).isEqualTo(altered0);
        assertThat(reported).as("converged: nothing more").hasSize(1);
    }

    @Test
    void idsDependOnTheTablesAloneNotOnTheOrderTheyAreSeenIn() {
        List<Long> first = ids(new GlobalTableRegistry(LogicalNames.defaults(), c -> { }), false);
        // as a daemon restarted midway, or a twin started later, sees them: another order, another start
        List<Long> reversed = ids(new GlobalTableRegistry(LogicalNames.defaults(), c -> { }), true);
        assertThat(first).isEqualTo(reversed);
        assertThat(first.get(2)).as("shop.orders from another shard").isEqualTo(first.get(0));
        assertThat(java.util.Set.of(first.get(0), first.get(1), first.get(3))).as("three logical tables").hasSize(3);
        assertThat(first).allSatisfy(id -> assertThat(id).isBetween(1L, GlobalTableRegistry.ID_LIMIT - 1));
    }

    private List<Long> ids(GlobalTableRegistry r, boolean reversed) {
        List<java.util.function.Supplier<Long>> seen = List.of(
                () -> r.tableMap("s0", PhysicalTables.renamed(tables.tableMapA, 1, "shop_00", "orders_00")).tableId(),
                () -> r.tableMap("s0", PhysicalTables.renamed(tables.tableMapA, 2, "shop_00", "items_00")).tableId(),
                () -> r.tableMap("s1", PhysicalTables.renamed(tables.tableMapA, 1, "shop_01", "orders_01")).tableId(),
                () -> r.tableMap("s1", PhysicalTables.renamed(tables.tableMapA, 3, "crm_01", "orders_01")).tableId());
        Long[] ids = new Long[seen.size()];
        for (int k = 0; k < seen.size(); k++) {
            int i = reversed ? seen.size() - 1 - k : k;
            ids[i] = seen.get(i).get();
        }
        return List.of(ids);
    }

    @Test
    void rowsWithoutATableMapInTheTransactionAreAnError() {
        registry.tableMap("shard-0", PhysicalTables.renamed(tables.tableMapA, 70, "shop_00", "orders_0000"));
        registry.endTransaction("shard-0");
        assertThatThrownBy(() -> registry.rows("shard-0", PhysicalTables.rows(tables.rowsA, 70)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shard shard-0: ")
                .hasMessageContaining("refers to table id 70, but no TABLE_MAP for it precedes it in the transaction");
    }
}
