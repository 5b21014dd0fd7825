//! What the pipeline needs to know of a group, decided once when the group is added or
//! replaced ([`GroupPlan::of`]): above all, the route an agent's neighbour work takes
//! ([`NeighbourRoute`]), matched in one place ([`super::perceive::perceive`]).

use crate::behaviours::avoidance::AvoidanceParams;
use crate::behaviours::containment::ContainmentParams;
use crate::behaviours::field::FollowFieldParams;
use crate::behaviours::flocking::{FlockTerms, SeparationKind};
use crate::behaviours::leader::LeaderParams;
use crate::behaviours::obstacles::ObstacleAvoidanceParams;
use crate::behaviours::walls::WallAvoidanceParams;
use crate::behaviours::wander::WanderParams;
use crate::combine::Combination;
use crate::group::{Behaviour, FieldId, GroupConfig, Movement};

/// Most terms a lane program holds.
pub(crate) const MAX_TERMS: usize = 8;

/// Most terms of a lane program that each agent computes on its own ([`Term::Own`]).
pub(crate) const MAX_OWN: usize = 3;

/// One behaviour of a lane program.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Term {
    /// The separation of the flocking sums.
    Separation,
    /// The alignment of the flocking sums.
    Alignment,
    /// The cohesion of the flocking sums.
    Cohesion,
    /// Wander (at most one per program: it draws from the agent's generator).
    Wander(WanderParams),
    /// Seek the agent's target.
    Seek,
    /// A behaviour each agent computes by its own formula, from the scene (the lanes
    /// only weigh and add its force).
    Own(OwnTerm),
}

/// A behaviour of a lane program whose force each of the four agents computes on its
/// own, by the behaviour's own (scalar) formula: it reads the scene, whose walls,
/// obstacles and goal field differ from agent to agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OwnTerm {
    FollowField {
        field: FieldId,
        params: FollowFieldParams,
    },
    WallAvoidance(WallAvoidanceParams),
    ObstacleAvoidance(ObstacleAvoidanceParams),
    Containment(ContainmentParams),
}

/// A group's behaviours and weights, in order, when all of them are lane terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Program {
    terms: [(Term, f32); MAX_TERMS],
    len: usize,
    /// The [`Term::Own`] terms, in order, and how many.
    own: [OwnTerm; MAX_OWN],
    owned: usize,
}

impl Program {
    /// A program of these terms, or `None` for more than [`MAX_TERMS`], more than
    /// [`MAX_OWN`] terms of the agents' own, or more than one wander.
    pub(crate) fn new(terms: impl IntoIterator<Item = (Term, f32)>) -> Option<Self> {
        let mut p = Self {
            terms: [(Term::Seek, 0.0); MAX_TERMS],
            len: 0,
            own: [OwnTerm::WallAvoidance(WallAvoidanceParams::default()); MAX_OWN],
            owned: 0,
        };
        for t in terms {
            *p.terms.get_mut(p.len)? = t;
            p.len += 1;
            if let (Term::Own(o), _) = t {
                *p.own.get_mut(p.owned)? = o;
                p.owned += 1;
            }
        }
        let wanders = p
            .terms()
            .iter()
            .filter(|(t, _)| matches!(t, Term::Wander(_)));
        (wanders.count() <= 1).then_some(p)
    }

    /// Whether some term is one each agent computes on its own.
    #[inline]
    pub(crate) fn owns(&self) -> bool {
        self.owned > 0
    }

    /// The terms each agent computes on its own, in order.
    #[inline]
    pub(crate) fn own(&self) -> &[OwnTerm] {
        &self.own[..self.owned]
    }

    /// The terms, in order.
    pub(crate) fn terms(&self) -> &[(Term, f32)] {
        &self.terms[..self.len]
    }

    /// The wander parameters, if the program wanders.
    pub(crate) fn wander(&self) -> Option<WanderParams> {
        self.terms().iter().find_map(|(t, _)| match t {
            Term::Wander(p) => Some(*p),
            _ => None,
        })
    }
}

/// How an agent's neighbours are perceived: the cheapest route that gives its group's
/// behaviours what they read. `docs/architecture.md` draws the routes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NeighbourRoute {
    /// No behaviour reads neighbours: no scan.
    None,
    /// Only the group's avoidance reads the neighbours: the scan's rows, no records.
    Rows,
    /// Some behaviour reads neighbour records (leader following, the average
    /// separation, a lone alignment or cohesion, a second separation): the scan's
    /// rows become records; the flocking forces, when the group has terms summed once
    /// for all its flocking behaviours, are made from the records.
    Records(Option<FlockTerms>),
    /// Only the flocking forces read the neighbours: their sums are read straight
    /// from the agent columns through the scan's rows, bitwise the record path.
    ColumnSums(FlockTerms),
    /// Only the flocking forces read the neighbours, and no avoidance: their sums are
    /// made in one pass over the index's candidates (no list, no second loop), which
    /// for all three terms carry unit velocities (a lone separation's push needs
    /// none); a row the pass declines takes [`Self::ColumnSums`]. The lanes' sums
    /// round differently from the scan order's.
    CandidateSums(FlockTerms),
}

impl NeighbourRoute {
    /// The route of a group with these behaviours.
    fn of(config: &GroupConfig) -> Self {
        if !config.needs_neighbours() {
            return Self::None;
        }
        let kinds = |f: fn(&Behaviour) -> bool| config.behaviours.iter().any(|b| f(&b.behaviour));
        let separation = config.behaviours.iter().find_map(|b| match b.behaviour {
            Behaviour::Separation(p) => Some(p),
            _ => None,
        });
        let flocking = usize::from(separation.is_some())
            + usize::from(kinds(|b| matches!(b, Behaviour::Alignment)))
            + usize::from(kinds(|b| matches!(b, Behaviour::Cohesion)));
        // The flocking terms summed once for the group: all three when it has two of
        // them or more; a lone separation only of the inverse-distance kind.
        let terms = if flocking >= 2 {
            Some(FlockTerms::All(separation.unwrap_or_default()))
        } else {
            separation
                .filter(|p| flocking == 1 && p.kind == SeparationKind::InverseDistance)
                .map(FlockTerms::Separation)
        };
        // Without records the sums serve the inverse-distance kind only.
        let summed = terms
            .map(|t| *t.params())
            .filter(|p| p.kind == SeparationKind::InverseDistance);
        let needs_records = config.behaviours.iter().any(|b| match b.behaviour {
            Behaviour::Separation(p) => summed != Some(p),
            Behaviour::Cohesion | Behaviour::Alignment => summed.is_none(),
            ref other => other.needs_neighbours(),
        });
        // Avoidance reads the scan's rows: a route that scans (the candidates' one
        // pass makes no list).
        let avoids = config.avoidance.is_some();
        match terms {
            Some(terms) if !needs_records && !avoids => Self::CandidateSums(terms),
            Some(terms) if !needs_records => Self::ColumnSums(terms),
            None if !needs_records => Self::Rows,
            _ => Self::Records(terms),
        }
    }

    /// Whether the agents scan for neighbours at all.
    pub(crate) fn scans(&self) -> bool {
        *self != Self::None
    }

    /// Whether the index's candidates must carry the rows' unit velocities: all three
    /// flocking sums made from them.
    pub(crate) fn candidates_carry_unit_vels(&self) -> bool {
        matches!(self, Self::CandidateSums(FlockTerms::All(_)))
    }

    /// The same terms through neighbour records (tests compare the routes).
    #[cfg(test)]
    pub(crate) fn with_records(self) -> Self {
        match self {
            Self::None | Self::Rows | Self::Records(_) => self,
            Self::ColumnSums(t) | Self::CandidateSums(t) => Self::Records(Some(t)),
        }
    }
}

/// How a group's agents are steered.
// One a group, read by reference: the program's size costs nothing per agent.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kernel {
    /// One agent at a time, through the behaviour dispatch ([`super::kernel`]).
    PerAgent,
    /// Four agents of the group at a time in vector lanes, when all its behaviours are
    /// terms of a [`Program`] combined by a weighted sum ([`super::lanes`]).
    Four(Program),
}

/// What the pipeline needs to know of a group, derived once from its config.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GroupPlan {
    /// How its agents perceive their neighbours.
    pub route: NeighbourRoute,
    /// How its agents are steered.
    pub kernel: Kernel,
    /// Some behaviour turns the heading through angular acceleration.
    pub angular: bool,
    /// A steering group without angular steering: integrated four rows at a time
    /// ([`crate::integrate::integrate_x4`]).
    pub integrate_x4: bool,
    /// Its agents are marked when in a leader's sight.
    pub watches_leaders: bool,
    /// It follows leaders, with these parameters.
    pub leader: Option<LeaderParams>,
    /// It has the approach walker (the only writer of the walker column).
    pub walks: bool,
    /// Its agents avoid collisions (ORCA): their steering output is then the velocity
    /// to move at, which the integration pass takes as it is.
    pub avoidance: Option<Avoiding>,
    /// The host moves its agents: the steering output is the desired velocity, and
    /// the integration pass leaves the rows alone.
    pub host_moves: bool,
    /// The goal field its agents follow (the first follow-field behaviour's), which
    /// their arrival is judged by where they have no target of their own.
    pub field: Option<FieldId>,
    /// Some behaviour heads for the target (seek, arrive, pursuit, the approach
    /// walker, kinematic seek and arrive): its agents aim round a wall that stands
    /// between them and it ([`crate::behaviours::walls::detour`]).
    pub detours: bool,
    /// Its agents steer every this many ticks ([`GroupConfig::think_every`]).
    pub think_every: u32,
}

/// A group's avoidance as the steering pass uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Avoiding {
    /// Its agents' avoidance on their way.
    pub own: Stance,
    /// Near their goal ([`AvoidanceParams::near_goal`]): how near, and their
    /// avoidance there.
    pub near: Option<(f32, Stance)>,
}

/// One avoidance as the steering pass uses it: the parameters, and the turn they give.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stance {
    pub params: AvoidanceParams,
    /// The turn to the right near others of an agent on its way, as `(sin, cos)`:
    /// the side bias times how much the agent yields (`1 - priority`).
    pub side_turn: (f32, f32),
}

impl Stance {
    fn of(params: AvoidanceParams) -> Self {
        Self {
            params,
            side_turn: (params.side_bias * (1.0 - params.priority)).sin_cos(),
        }
    }
}

impl Avoiding {
    /// The avoidance of `params` as the steering pass uses it.
    pub(crate) fn of(params: AvoidanceParams) -> Self {
        Self {
            own: Stance::of(params),
            near: params
                .near_goal
                .map(|near| (near.within, Stance::of(params.pressing(&near)))),
        }
    }

    /// The avoidance of an agent `distance` from its goal (infinite: none).
    pub(crate) fn at(&self, distance: f32) -> &Stance {
        match &self.near {
            Some((within, near)) if distance <= *within => near,
            _ => &self.own,
        }
    }
}

impl GroupPlan {
    /// The plan of a group with this config.
    pub(crate) fn of(config: &GroupConfig) -> Self {
        let route = NeighbourRoute::of(config);
        // The lane kernel and integration serve groups whose outputs are forces the
        // engine integrates; a group the host moves, or whose avoidance makes its
        // output a velocity, is steered one agent at a time.
        let kernel = if config.host_moves || config.avoidance.is_some() {
            Kernel::PerAgent
        } else {
            Self::program(config, route).map_or(Kernel::PerAgent, Kernel::Four)
        };
        Self {
            route,
            kernel,
            angular: config.uses_angular(),
            integrate_x4: config.movement == Movement::Steering
                && !config.uses_angular()
                && config.avoidance.is_none()
                && !config.host_moves,
            watches_leaders: config.watches_leaders(),
            leader: config.leader_params().copied(),
            walks: config
                .behaviours
                .iter()
                .any(|b| matches!(b.behaviour, Behaviour::Approach(_))),
            host_moves: config.host_moves,
            field: config.behaviours.iter().find_map(|b| match b.behaviour {
                Behaviour::FollowField { field, .. } => Some(field),
                _ => None,
            }),
            detours: config.behaviours.iter().any(|b| {
                matches!(
                    b.behaviour,
                    Behaviour::Seek
                        | Behaviour::Arrive(_)
                        | Behaviour::Pursuit
                        | Behaviour::Approach(_)
                        | Behaviour::KinematicSeek
                        | Behaviour::KinematicArrive(_)
                )
            }),
            think_every: config.think_every,
            avoidance: config.avoidance.map(Avoiding::of),
        }
    }

    /// The group's behaviours as a lane program, when they all are lane terms (the
    /// flocking trio from the sums, one wander, seek, and up to [`MAX_OWN`] of the
    /// scene's: field following, wall and obstacle avoidance, containment) under a
    /// weighted sum, and no behaviour reads neighbour records.
    fn program(config: &GroupConfig, route: NeighbourRoute) -> Option<Program> {
        if config.movement != Movement::Steering
            || config.combination != Combination::WeightedSum
            || matches!(route, NeighbourRoute::Records(_))
        {
            return None;
        }
        let terms = config.behaviours.iter().map(|b| {
            let term = match b.behaviour {
                Behaviour::Separation(_) => Term::Separation,
                Behaviour::Alignment => Term::Alignment,
                Behaviour::Cohesion => Term::Cohesion,
                Behaviour::Wander(p) => Term::Wander(p),
                Behaviour::Seek => Term::Seek,
                Behaviour::FollowField { field, params } => {
                    Term::Own(OwnTerm::FollowField { field, params })
                }
                Behaviour::WallAvoidance(p) => Term::Own(OwnTerm::WallAvoidance(p)),
                Behaviour::ObstacleAvoidance(p) => Term::Own(OwnTerm::ObstacleAvoidance(p)),
                Behaviour::Containment(p) => Term::Own(OwnTerm::Containment(p)),
                _ => return None,
            };
            Some((term, b.weight))
        });
        Program::new(terms.collect::<Option<Vec<_>>>()?)
    }

    /// The plan with the neighbour route through records and one agent at a time
    /// (tests compare it with the faster routes).
    #[cfg(test)]
    pub(crate) fn with_records(self) -> Self {
        Self {
            route: self.route.with_records(),
            kernel: Kernel::PerAgent,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::flocking::SeparationParams;
    use crate::behaviours::leader::LeaderParams;
    use crate::behaviours::wander::WanderParams;

    fn route(behaviours: &[Behaviour]) -> NeighbourRoute {
        let mut g = GroupConfig::new("g");
        for b in behaviours {
            g = g.with(b.clone(), 1.0);
        }
        GroupPlan::of(&g).route
    }

    #[test]
    fn near_its_goal_an_agent_avoids_with_the_near_keys() {
        // The pedestrian preset: within 12 of its goal, a time gap of 0.35, squeeze
        // 0.25 and a keep-right of 0.8 times how much it yields (0.5): the turn of
        // 0.4 rad; farther, and without a goal, the group's own (0.6 x 0.5 = 0.3).
        let a = Avoiding::of(AvoidanceParams::pedestrian());
        assert_eq!(a.own.side_turn, 0.3f32.sin_cos());
        for d in [0.0, 11.0, 12.0] {
            let near = a.at(d);
            assert_eq!(near.side_turn, 0.4f32.sin_cos(), "{d}");
            assert_eq!(
                (
                    near.params.time_gap,
                    near.params.squeeze,
                    near.params.near_goal
                ),
                (0.35, 0.25, None)
            );
            assert_eq!(near.params.priority, a.own.params.priority);
        }
        for d in [12.01, f32::INFINITY, f32::NAN] {
            assert_eq!(a.at(d), &a.own, "{d}");
        }
        // Without near keys, the group's own everywhere.
        let plain = Avoiding::of(AvoidanceParams::default());
        assert_eq!((plain.near, plain.at(0.0)), (None, &plain.own));
    }

    #[test]
    fn programs_hold_at_most_eight_terms_and_one_wander() {
        let w = Term::Wander(WanderParams::default());
        let p = Program::new([(Term::Separation, 1.5), (w, 0.3), (Term::Seek, 0.1)]).unwrap();
        assert_eq!(p.terms().len(), 3);
        assert_eq!(p.wander(), Some(WanderParams::default()));
        assert!(Program::new([(w, 0.3), (w, 0.3)]).is_none());
        assert!(Program::new([(Term::Seek, 1.0); MAX_TERMS]).is_some());
        assert!(Program::new([(Term::Seek, 1.0); MAX_TERMS + 1]).is_none());
        assert_eq!(Program::new([(Term::Seek, 1.0)]).unwrap().wander(), None);
        // At most three terms of the agents' own.
        let walls = Term::Own(OwnTerm::WallAvoidance(WallAvoidanceParams::default()));
        let own = Program::new([(walls, 1.0), (Term::Seek, 1.0), (walls, 2.0)]).unwrap();
        assert!(own.owns());
        assert_eq!(own.own().len(), 2);
        assert!(!p.owns());
        assert!(Program::new([(walls, 1.0); MAX_OWN]).is_some());
        assert!(Program::new([(walls, 1.0); MAX_OWN + 1]).is_none());
    }

    #[test]
    fn routes_are_the_cheapest_that_serve_the_behaviours() {
        use NeighbourRoute::*;
        let p = SeparationParams::default();
        let sep = Behaviour::Separation(p);
        let avg_p = SeparationParams {
            kind: SeparationKind::Average,
            ..p
        };
        let avg = Behaviour::Separation(avg_p);
        let wander = Behaviour::Wander(WanderParams::default());
        // No neighbour behaviour.
        assert_eq!(route(&[Behaviour::Seek, wander.clone()]), None);
        // Two or three flocking behaviours, nothing else reading neighbours.
        let all = FlockTerms::All(p);
        assert_eq!(
            route(&[sep.clone(), Behaviour::Alignment, Behaviour::Seek]),
            CandidateSums(all)
        );
        assert_eq!(
            route(&[Behaviour::Cohesion, Behaviour::Alignment]),
            CandidateSums(all)
        );
        // A lone inverse-distance separation: its push alone in one pass over the
        // candidates (which need no unit velocities for it); beside avoidance, which
        // reads the scan's rows, summed from the columns through them.
        let lone = FlockTerms::Separation(p);
        assert_eq!(route(std::slice::from_ref(&sep)), CandidateSums(lone));
        assert!(!CandidateSums(lone).candidates_carry_unit_vels());
        assert!(CandidateSums(all).candidates_carry_unit_vels());
        let avoiding = GroupConfig::new("g")
            .with(sep.clone(), 1.0)
            .avoiding(AvoidanceParams::default());
        assert_eq!(GroupPlan::of(&avoiding).route, ColumnSums(lone));
        // A lone cohesion or alignment reads records, without summed terms.
        assert_eq!(route(&[Behaviour::Cohesion]), Records(Option::None));
        assert_eq!(
            route(&[Behaviour::Alignment, Behaviour::Seek]),
            Records(Option::None)
        );
        // The average formula, or a second separation with other parameters.
        assert_eq!(
            route(&[avg.clone(), Behaviour::Alignment]),
            Records(Some(FlockTerms::All(avg_p)))
        );
        assert_eq!(route(std::slice::from_ref(&avg)), Records(Option::None));
        assert_eq!(
            route(&[sep.clone(), Behaviour::Alignment, avg]),
            Records(Some(all))
        );
        // Leader following reads records beside the summed terms.
        let follow = Behaviour::LeaderFollow {
            leader: LeaderParams::default(),
            separation: p,
        };
        assert_eq!(
            route(&[follow, sep.clone()]),
            Records(Some(FlockTerms::Separation(p)))
        );
    }

    #[test]
    fn lane_programs_need_a_weighted_sum_of_lane_terms_without_records() {
        let wander = Behaviour::Wander(WanderParams::default());
        let sep = Behaviour::Separation(SeparationParams::default());
        let plan = |g: GroupConfig| GroupPlan::of(&g).kernel;
        let boids = GroupConfig::new("b")
            .with(sep.clone(), 1.5)
            .with(Behaviour::Alignment, 0.5)
            .with(wander.clone(), 0.3)
            .with(Behaviour::Seek, 0.1);
        assert!(matches!(plan(boids.clone()), Kernel::Four(_)));
        let prioritized = boids.clone().combined_by(Combination::Prioritized);
        assert_eq!(plan(prioritized), Kernel::PerAgent);
        // Avoidance makes the output a velocity, which the lanes do not compute.
        let avoiding = boids.clone().avoiding(AvoidanceParams::default());
        assert_eq!(plan(avoiding), Kernel::PerAgent);
        let seekers = GroupConfig::new("s").with(Behaviour::Seek, 1.0);
        assert!(matches!(plan(seekers.clone()), Kernel::Four(_)));
        assert_eq!(
            plan(seekers.avoiding(AvoidanceParams::default())),
            Kernel::PerAgent
        );
        assert_eq!(plan(boids.with(Behaviour::Pursuit, 1.0)), Kernel::PerAgent);
        // A lone cohesion reads records.
        assert_eq!(
            plan(GroupConfig::new("c").with(Behaviour::Cohesion, 1.0)),
            Kernel::PerAgent
        );
        // The scene's behaviours are the agents' own terms, up to three of them.
        let field = Behaviour::FollowField {
            field: FieldId::of_world(0, crate::agents::WorldTag::NONE),
            params: FollowFieldParams::default(),
        };
        let evacuees = GroupConfig::new("e").with(field, 1.0).with(sep, 1.5).with(
            Behaviour::WallAvoidance(WallAvoidanceParams::default()),
            2.0,
        );
        assert!(matches!(plan(evacuees.clone()), Kernel::Four(p) if p.owns()));
        let four_own = evacuees
            .clone()
            .with(Behaviour::ObstacleAvoidance(Default::default()), 1.0);
        assert!(matches!(plan(four_own.clone()), Kernel::Four(p) if p.owns()));
        assert_eq!(
            plan(four_own.with(
                Behaviour::Containment(ContainmentParams {
                    region: crate::behaviours::containment::Region::Circle {
                        centre: glam::Vec2::ZERO,
                        radius: 5.0,
                    },
                    lookahead: 1.0,
                }),
                1.0
            )),
            Kernel::PerAgent
        );
        assert_eq!(
            plan(evacuees.avoiding(AvoidanceParams::default())),
            Kernel::PerAgent
        );
    }
}
