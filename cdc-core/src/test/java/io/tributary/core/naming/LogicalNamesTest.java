package io.tributary.core.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LogicalNamesTest {

    @Test
    void byDefaultATrailingUnderscoreAndDigitsIsStripped() {
        LogicalNames n = LogicalNames.defaults();
        assertThat(n.logicalTable("shop_03", "orders_0007")).isEqualTo(new LogicalTable("shop", "orders"));
        assertThat(n.database("shop")).isEqualTo("shop");
        assertThat(n.table("orders_v2")).isEqualTo("orders_v2");
        assertThat(n.table("t_order_2024_01")).as("only the last group").isEqualTo("t_order_2024");
        assertThat(n.table("_7")).as("nothing left to keep").isEqualTo("_7");
        assertThat(n.table("user_1x")).isEqualTo("user_1x");
    }

    @Test
    void rulesOverrideTheDefaultPerDatabaseOrTable() {
        LogicalNames n = new LogicalNames(List.of(
                NamingRule.of(NamingRule.Scope.TABLE, "t_order_\\d{4}_\\d{2}", "t_order"),
                NamingRule.of(NamingRule.Scope.DATABASE, "(tenant)_(eu|us)_\\d+", "$1_$2"),
                NamingRule.of(NamingRule.Scope.TABLE, "keep_(\\d+)", "keep_$1")), true);
        assertThat(n.table("t_order_2024_01")).isEqualTo("t_order");
        assertThat(n.database("tenant_eu_07")).isEqualTo("tenant_eu");
        assertThat(n.table("keep_3")).as("a rule may keep digits").isEqualTo("keep_3");
        assertThat(n.database("keep_3")).as("table rules do not rename databases").isEqualTo("keep");
        assertThat(n.table("orders_0007")).as("the default still applies elsewhere").isEqualTo("orders");
    }

    @Test
    void theDefaultCanBeSwitchedOff() {
        LogicalNames n = new LogicalNames(List.of(NamingRule.of(NamingRule.Scope.DATABASE, "shop_\\d+", "shop")), false);
        assertThat(n.logicalTable("shop_03", "orders_0007")).isEqualTo(new LogicalTable("shop", "orders_0007"));
    }

    @Test
    void aBadRegexIsRefusedNamingIt() {
        assertThatThrownBy(() -> NamingRule.of(NamingRule.Scope.TABLE, "orders_(\\d+", "orders"))
                .hasMessageStartingWith("Invalid value orders_(\\d+ for configuration naming rule (TABLE): not a regular"
                        + " expression");
    }
}
