//! Big cases: one road network ruled as one case. The package `demo.roads`
//! (`package/demo.roads.clir`) says which cities can be reached from a capital while some roads
//! are closed: a closure policy (`~closed` for every road not recorded as closed) and a stratum
//! (`open_road`) under a recursive one (`reachable`), so the
//! work of a case grows with its roads, linearly when evaluation is semi-naive.
//!
//! The same rules are written in ascent ([`ascent_roads`]) and crepe ([`crepe_roads`]), and as a
//! breadth-first search ([`search`]); `tests/agree.rs` checks that all four agree with the compiled
//! package, and `benches/big_case.rs` times them on networks of 10^3 to 10^6 facts.

clir::include_clir!("demo.roads");

/// A road network: cities `0..cities`, capitals, roads and closed roads.
#[derive(Debug, Clone)]
pub struct Network {
    /// Number of cities.
    pub cities: u32,
    /// Capital cities.
    pub capitals: Vec<u32>,
    /// Roads `(from, to)`.
    pub roads: Vec<(u32, u32)>,
    /// Closed roads (a subset of `roads`).
    pub closed: Vec<(u32, u32)>,
}

impl Network {
    /// A network of about `facts` facts: each city has a road to the next and one to a random
    /// city, one road in ten is closed, one city in a thousand is a capital (seeded, so a
    /// network is the same on every machine).
    pub fn generate(facts: usize, seed: u64) -> Network {
        let cities = (facts as u32 / 2).max(2);
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut roads = Vec::with_capacity(cities as usize * 2);
        let mut closed = Vec::new();
        for c in 0..cities {
            for to in [(c + 1) % cities, (next() % cities as u64) as u32] {
                roads.push((c, to));
                if next() % 10 == 0 {
                    closed.push((c, to));
                }
            }
        }
        roads.sort_unstable();
        roads.dedup();
        closed.sort_unstable();
        closed.dedup();
        let capitals = (0..cities).step_by(1000).collect();
        Network { cities, capitals, roads, closed }
    }

    /// How many facts the case has.
    pub fn facts(&self) -> usize {
        self.capitals.len() + self.roads.len() + self.closed.len()
    }

    /// The city's entity name in a case.
    pub fn name(city: u32) -> String {
        format!("c{city}")
    }

    /// The network as one case of a batch for the compiled package.
    pub fn batch(&self) -> clir::Batch {
        use demo_roads::*;
        let mut batch = clir::Batch::new(&SCHEMA);
        let case = batch.add_case();
        let ids: Vec<City> = (0..self.cities).map(|c| City(batch.entity(&Network::name(c)))).collect();
        for &c in &self.capitals {
            batch.add(REL_CAPITAL, false, (case, ids[c as usize]));
        }
        for &(a, b) in &self.roads {
            batch.add(REL_ROAD, false, (case, ids[a as usize], ids[b as usize]));
        }
        for &(a, b) in &self.closed {
            batch.add(REL_CLOSED, false, (case, ids[a as usize], ids[b as usize]));
        }
        batch
    }

    /// The network as a case line (docs/FORMAT.md "Case lines").
    pub fn case_line(&self, case: &str) -> String {
        let names = |v: &[(u32, u32)]| {
            let rows: Vec<String> =
                v.iter().map(|&(a, b)| format!("[\"{}\",\"{}\"]", Network::name(a), Network::name(b))).collect();
            rows.join(",")
        };
        let capitals: Vec<String> = self.capitals.iter().map(|&c| format!("[\"{}\"]", Network::name(c))).collect();
        format!(
            "{{\"case\":\"{case}\",\"facts\":{{\"capital\":[{}],\"closed\":[{}],\"road\":[{}]}}}}",
            capitals.join(","),
            names(&self.closed),
            names(&self.roads)
        )
    }
}

/// The reachable cities as the compiled package concludes them, sorted.
pub fn compiled(net: &Network) -> Vec<u32> {
    let batch = net.batch();
    let out = demo_roads::evaluate(&batch);
    let rows = &out.concluded[clir::slot(demo_roads::REL_REACHABLE, false)];
    let mut cities: Vec<u32> = rows
        .chunks_exact(2)
        .map(|r| batch.interner.name(clir::Sym(r[1] as u32))[1..].parse().expect("a city name"))
        .collect();
    cities.sort_unstable();
    cities
}

/// The three rules in ascent.
pub mod ascent_roads {
    use ascent::ascent;

    ascent! {
        /// demo.roads in ascent.
        pub struct Roads;
        relation capital(u32);
        relation road(u32, u32);
        relation closed(u32, u32);
        relation open_road(u32, u32);
        relation reachable(u32);
        open_road(a, b) <-- road(a, b), !closed(a, b);
        reachable(c) <-- capital(c);
        reachable(b) <-- reachable(a), open_road(a, b);
    }

    /// The reachable cities, sorted.
    pub fn run(net: &super::Network) -> Vec<u32> {
        let mut prog = Roads {
            capital: net.capitals.iter().map(|&c| (c,)).collect(),
            road: net.roads.clone(),
            closed: net.closed.clone(),
            ..Default::default()
        };
        prog.run();
        let mut v: Vec<u32> = prog.reachable.iter().map(|&(c,)| c).collect();
        v.sort_unstable();
        v
    }
}

/// The three rules in crepe.
pub mod crepe_roads {
    use crepe::crepe;

    crepe! {
        @input
        struct Capital(u32);
        @input
        struct Road(u32, u32);
        @input
        struct Closed(u32, u32);
        struct OpenRoad(u32, u32);
        @output
        struct Reachable(u32);
        OpenRoad(a, b) <- Road(a, b), !Closed(a, b);
        Reachable(c) <- Capital(c);
        Reachable(b) <- Reachable(a), OpenRoad(a, b);
    }

    /// The reachable cities, sorted.
    pub fn run(net: &super::Network) -> Vec<u32> {
        let mut rt = Crepe::new();
        rt.extend(net.capitals.iter().map(|&c| Capital(c)));
        rt.extend(net.roads.iter().map(|&(a, b)| Road(a, b)));
        rt.extend(net.closed.iter().map(|&(a, b)| Closed(a, b)));
        let (reachable,) = rt.run();
        let mut v: Vec<u32> = reachable.into_iter().map(|Reachable(c)| c).collect();
        v.sort_unstable();
        v
    }
}

/// The reachable cities by a breadth-first search over the open roads (what a hand-written
/// program would do), sorted.
pub fn search(net: &Network) -> Vec<u32> {
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); net.cities as usize];
    for &(a, b) in &net.roads {
        if net.closed.binary_search(&(a, b)).is_err() {
            out[a as usize].push(b);
        }
    }
    let mut seen = vec![false; net.cities as usize];
    let mut queue: std::collections::VecDeque<u32> = net.capitals.iter().copied().collect();
    for &c in &net.capitals {
        seen[c as usize] = true;
    }
    while let Some(c) = queue.pop_front() {
        for &d in &out[c as usize] {
            if !std::mem::replace(&mut seen[d as usize], true) {
                queue.push_back(d);
            }
        }
    }
    (0..net.cities).filter(|&c| seen[c as usize]).collect()
}
