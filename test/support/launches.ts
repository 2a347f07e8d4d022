// The launcher (server/process/launch.ts) refuses every launch until a front end installs a policy;
// a test file or bench script that runs programs through it is a front end like the CLI, and says so
// by calling allowLaunches() at its top. A test that installs a policy of its own restores this one.
import { allowEveryLaunch, setLaunchPolicy } from "../../server/process/launchPolicy";

export function allowLaunches(): void {
  setLaunchPolicy(allowEveryLaunch);
}
