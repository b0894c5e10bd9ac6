package io.tributary.daemon.dump;

import io.tributary.core.event.BinlogFlavor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.ZoneId;
import java.time.ZonedDateTime;

import static org.assertj.core.api.Assertions.assertThat;

/** TIMEDIFF and TIME_TO_SEC as MySQL prints them; Flink CDC's time zone check end to end. */
class TimeValuesTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "2026-11-26 10:00:00|2026-11-26 08:30:15|01:29:45",
            "2026-11-26 08:00:00|2026-11-26 10:00:00|-02:00:00",
            "2026-11-28 08:00:00|2026-11-26 07:00:00|49:00:00",
            "2026-11-26 08:00:00.250|2026-11-26 08:00:00|00:00:00.250",
            "2026-11-26|2026-11-26 08:00:00|"})
    void timediffPrintsATime(String a, String b, String expected) {
        assertThat(TimeValues.timediff(a, b)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"01:29:45|5385", "-02:00:00|-7200", "49:00:00|176400", "00:00:00.250|0.250",
            "nonsense|"})
    void timeToSecCountsSeconds(String time, String expected) {
        assertThat(TimeValues.timeToSec(time)).isEqualTo(expected);
    }

    @Test
    void flinkCdcsTimeZoneCheckGetsTheOffsetOfTheDaemonsZone() {
        QueryResponder r = new QueryResponder(new ServerVariables(BinlogFlavor.MYSQL, 7, "x", 3399, false), () -> null);
        Answer a = r.answer("SELECT TIME_TO_SEC(TIMEDIFF(NOW(), UTC_TIMESTAMP()))", new DumpSession(1, "flink",
                BinlogFlavor.MYSQL, false));
        assertThat(a).isInstanceOf(Answer.Rows.class);
        long offset = Long.parseLong(((Answer.Rows) a).resultSet().rows().get(0).get(0));
        assertThat(offset).isEqualTo(ZonedDateTime.now(ZoneId.systemDefault()).getOffset().getTotalSeconds());
    }
}
