// The Flores-Leine-Glocker slider-crank in Siconos with the time loop in C++: the C++ driver
// of benchmarks/siconos_slider_crank.py (`--driver cpp`, benchmarks/siconos_cpp.py compiles it
// with g++ and runs it). The model is the one that script's build() makes, piece for piece:
// the same LagrangianDS with the same C plugin (PLUGIN_C, parameters in the DS's z vector), one
// LagrangianScleronomousR per corner, NewtonImpactFrictionNSL(e, 0, mu, 2) with a 2D
// FrictionContact (Lemke) or, when mu = 0, NewtonImpactNSL(e) with an LCP (Lemke),
// MoreauJeanOSI(theta), TimeStepping at velocity level, Newton tolerance and 200 iterations.
//
// Usage: siconos_slider_crank PLUGIN RECORDS l1 l2 a b c m1 m2 m3 J1 J2 J3 g omega0 e mu h
//                             t_end theta newton_tol
// (PLUGIN without .so; RECORDS a file for one record per step, or "-" for none). Prints one
// JSON line: setup and loop wall and CPU times, steps, the crank speed at the end. A record is
// 8 doubles: t, q (3), v (3), the largest normal impulse over the corners.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "SiconosKernel.hpp"

namespace {

const char *CORNERS[] = {"front_upper", "back_upper", "front_lower", "back_lower"};
enum { L1, L2, A, B, C, M1, M2, M3, J1, J2, J3, G, OMEGA0, E, MU, H, T_END, THETA, NEWTON_TOL, N };

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Model {
  SP::TimeStepping sim;
  SP::LagrangianDS ds;
  std::vector<SP::Interaction> inters;
};

Model build(const std::string &lib, const double *p) {
  Model m;
  SP::SiconosVector q0(new SiconosVector(3)), v0(new SiconosVector(3));
  q0->zero();
  v0->zero();
  (*v0)(0) = p[OMEGA0];
  (*v0)(1) = -p[OMEGA0] * p[L1] / p[L2];
  m.ds.reset(new LagrangianDS(q0, v0));
  SP::SiconosVector z(new SiconosVector(12));
  for (int k = 0; k < 12; k++) (*z)(k) = p[L1 + k];  // l1 l2 a b c m1 m2 m3 J1 J2 J3 g
  m.ds->setzPtr(z);
  m.ds->setComputeMassFunction(lib, "mass");
  m.ds->setComputeFGyrFunction(lib, "fgyr");
  m.ds->setComputeJacobianFGyrqFunction(lib, "fgyr_q");
  m.ds->setComputeJacobianFGyrqDotFunction(lib, "fgyr_v");
  m.ds->setComputeFIntFunction(lib, "fint");
  m.ds->setComputeJacobianFIntqFunction(lib, "fint_q");
  m.ds->setComputeJacobianFIntqDotFunction(lib, "fint_v");
  SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(0.0, p[T_END]));
  nsds->insertDynamicalSystem(m.ds);
  const bool frictional = p[MU] > 0.0;
  for (const char *name : CORNERS) {
    SP::NonSmoothLaw law;
    if (frictional)
      law.reset(new NewtonImpactFrictionNSL(p[E], 0.0, p[MU], 2));
    else
      law.reset(new NewtonImpactNSL(p[E]));
    SP::Relation rel(new LagrangianScleronomousR(lib + ":gap_" + name, lib + ":jac_" + name));
    SP::Interaction inter(new Interaction(law, rel));
    nsds->link(inter, m.ds);
    m.inters.push_back(inter);
  }
  SP::OneStepNSProblem osnsp;
  if (frictional)
    osnsp.reset(new FrictionContact(2, SICONOS_FRICTION_2D_LEMKE));
  else
    osnsp.reset(new LCP(SICONOS_LCP_LEMKE));
  SP::TimeDiscretisation td(new TimeDiscretisation(0.0, p[H]));
  m.sim.reset(new TimeStepping(nsds, td));
  m.sim->insertIntegrator(SP::MoreauJeanOSI(new MoreauJeanOSI(p[THETA])));
  m.sim->insertNonSmoothProblem(osnsp, SICONOS_OSNSP_TS_VELOCITY);
  m.sim->setNewtonTolerance(p[NEWTON_TOL]);
  m.sim->setNewtonMaxIteration(200);
  return m;
}

void record(std::FILE *out, double t, const Model &m, bool impulses = true) {
  double row[8] = {t};
  for (int k = 0; k < 3; k++) {
    row[1 + k] = m.ds->q()->getValue(k);
    row[4 + k] = m.ds->velocity()->getValue(k);
  }
  if (impulses)  // none before the first step: the lambdas do not exist yet
    for (const SP::Interaction &inter : m.inters)
      row[7] = std::max(row[7], inter->lambda(1)->getValue(0));
  std::fwrite(row, sizeof(double), 8, out);
}

}  // namespace

int main(int argc, char *argv[]) {
  if (argc != 3 + N) {
    std::fprintf(stderr, "usage: %s PLUGIN RECORDS and %d numbers (see the source)\n", argv[0],
                 N);
    return 2;
  }
  const std::string lib = argv[1], records = argv[2];
  double p[N];
  for (int k = 0; k < N; k++) p[k] = std::strtod(argv[3 + k], nullptr);
  try {
    double wall = wall_now(), cpu = cpu_now();
    Model m = build(lib, p);
    const double setup_wall = wall_now() - wall, setup_cpu = cpu_now() - cpu;
    std::FILE *out = records == "-" ? nullptr : std::fopen(records.c_str(), "wb");
    if (records != "-" && !out) {
      std::fprintf(stderr, "siconos_slider_crank: cannot write %s\n", records.c_str());
      return 2;
    }
    if (out) record(out, 0.0, m, false);
    long steps = 0;
    wall = wall_now();
    cpu = cpu_now();
    while (m.sim->hasNextEvent()) {
      m.sim->advanceToEvent();  // computeOneStep()
      if (out) record(out, m.sim->nextTime(), m);
      m.sim->processEvents();  // nextStep()
      ++steps;
    }
    const double loop_wall = wall_now() - wall, loop_cpu = cpu_now() - cpu;
    if (out) std::fclose(out);
    std::printf(
        "{\"setup_time\": %.17g, \"setup_cpu_time\": %.17g, \"loop_time\": %.17g, "
        "\"loop_cpu_time\": %.17g, \"steps\": %ld, \"crank_speed_end\": %.17g}\n",
        setup_wall, setup_cpu, loop_wall, loop_cpu, steps, m.ds->velocity()->getValue(0));
  } catch (...) {
    std::fprintf(stderr, "siconos_slider_crank: the Siconos run failed\n");
    return 1;
  }
  return 0;
}
