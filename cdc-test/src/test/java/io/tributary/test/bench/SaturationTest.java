package io.tributary.test.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SaturationTest {

    @Test
    void aFlatLevelConfirmedByTheNextOneEndsTheLadderAtTheLastRisingLevel() {
        Saturation s = new Saturation();
        assertFalse(s.add("1 client", 1000));
        assertFalse(s.add("2 clients", 1600));
        assertFalse(s.add("4 clients", 1650), "a first flat level is only a candidate");
        assertTrue(s.add("8 clients", 1640), "the next flat level confirms");
        assertTrue(s.saturated());
        assertEquals("saturated at 2 clients (1,600 shard TPS): 4 clients added +3.1% over it, 8 clients -0.6% over the"
                + " best level before it", s.verdict());
        assertFalse(s.add("16 clients", 5000), "nothing counts after the confirmation");
    }

    @Test
    void aLevelThatRisesAgainClearsTheCandidate() {
        Saturation s = new Saturation();
        s.add("1 client", 1000);
        s.add("2 clients", 1050);
        assertFalse(s.add("4 clients", 1300), "rose 24% over the best: not saturated after all");
        assertFalse(s.add("8 clients", 1500));
        assertFalse(s.saturated());
        assertEquals("not saturated up to 8 clients: it added +15.4% shard TPS over the level before it", s.verdict());
    }

    @Test
    void aFallingLevelIsACandidateAndUnmeasuredLevelsAreSkipped() {
        Saturation s = new Saturation();
        s.add("2 clients", 1600);
        assertFalse(s.add("4 clients", Double.NaN));
        assertFalse(s.add("8 clients", 1200));
        assertFalse(s.saturated());
        assertEquals("possibly saturated at 2 clients (1,600 shard TPS): 8 clients added -25.0% over it; no further"
                + " level to confirm", s.verdict());
    }
}
