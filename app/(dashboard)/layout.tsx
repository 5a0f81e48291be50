import { Nav } from "@/components/nav";
import { getDatabase } from "@/lib/server/db";
import { requireUser } from "../_lib/auth";
import { signOutAction } from "../(auth)/actions";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const user = await requireUser();
  const openIncidents = await getDatabase().prisma.incident.count({ where: { status: "open" } });
  return (
    <div className="min-h-screen">
      <Nav email={user.email} admin={user.role === "admin"} signOut={signOutAction} openIncidents={openIncidents} />
      <main className="mx-auto max-w-6xl px-4 py-6">{children}</main>
    </div>
  );
}
