// C++ side of the ns-3 backend, compiled once per process with cppyy.cppdef.
// ns-3 callbacks cannot call Python, so this class owns the devices, receives frames, records
// deliveries and transmit statuses into flat vectors that Python reads with numpy, and stops the
// simulator early when a node that Python listens on receives something.
// the headers of what this file names, not whole modules: cling parses them in every process
#include "ns3/aodv-helper.h"
#include "ns3/arp-cache.h"
#include "ns3/arp-l3-protocol.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/constant-velocity-mobility-model.h"
#include "ns3/double.h"
#include "ns3/dsdv-helper.h"
#include "ns3/dsdv-routing-protocol.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/lr-wpan-helper.h"
#include "ns3/lr-wpan-net-device.h"
#include "ns3/lr-wpan-spectrum-value-helper.h"
#include "ns3/mobility-helper.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/olsr-helper.h"
#include "ns3/packet.h"
#include "ns3/propagation-delay-model.h"
#include "ns3/propagation-loss-model.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/single-model-spectrum-channel.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/qos-txop.h"
#include "ns3/txop.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"
#include "ns3/wifi-helper.h"
#include "ns3/wifi-mac-helper.h"
#include "ns3/wifi-mac-header.h"
#include "ns3/wifi-mac-queue.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-remote-station-manager.h"
#include "ns3/yans-wifi-helper.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace cosim_ns3
{

using namespace ns3;

// Obstacles between two radios: txPower minus lossDb for each solid the line of sight crosses
// (block: nothing gets through). ns-3 has no outdoor obstacle-shadowing model of its own (its
// buildings module models indoor/outdoor penetration and 3GPP LOS/NLOS, not a loss per wall), so
// this one joins the channel's loss chain after the path-loss model, with the same geometry and
// the same crossing tests as the fast radio (netstack/fast/shadowing.py).
class ObstacleLossModel : public PropagationLossModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("cosim_ns3::ObstacleLossModel").SetParent<PropagationLossModel>().SetGroupName("Propagation");
        return tid;
    }

    // boxes: 7 doubles each (centre x y z, half extents x y z, yaw); cylinders: 5 (centre x y z, radius, half height)
    void Set(double lossDb, bool block, const std::vector<double>& boxes, const std::vector<double>& cylinders)
    {
        m_lossDb = lossDb;
        m_block = block;
        m_boxes = boxes;
        m_cylinders = cylinders;
    }

    int Crossings(const Vector& a, const Vector& b) const
    {
        int n = 0;
        for (size_t k = 0; k + 7 <= m_boxes.size(); k += 7)
            n += CrossesBox(a, b, &m_boxes[k]) ? 1 : 0;
        for (size_t k = 0; k + 5 <= m_cylinders.size(); k += 5)
            n += CrossesCylinder(a, b, &m_cylinders[k]) ? 1 : 0;
        return n;
    }

  private:
    static void Slab(double p0, double d, double lo, double hi, double& t0, double& t1)
    {
        if (std::abs(d) < 1e-12)
        {
            bool in = p0 >= lo && p0 <= hi;
            t0 = in ? -INFINITY : INFINITY;
            t1 = in ? INFINITY : -INFINITY;
            return;
        }
        double ta = (lo - p0) / d, tb = (hi - p0) / d;
        t0 = std::min(ta, tb);
        t1 = std::max(ta, tb);
    }

    static bool CrossesBox(const Vector& a, const Vector& b, const double* box)
    {
        double c = std::cos(box[6]), s = std::sin(box[6]);
        double ax = a.x - box[0], ay = a.y - box[1], bx = b.x - box[0], by = b.y - box[1];
        double p[3] = {c * ax + s * ay, -s * ax + c * ay, a.z - box[2]};
        double q[3] = {c * bx + s * by, -s * bx + c * by, b.z - box[2]};
        double enter = -INFINITY, leave = INFINITY;
        for (int i = 0; i < 3; ++i)
        {
            double t0, t1;
            Slab(p[i], q[i] - p[i], -box[3 + i], box[3 + i], t0, t1);
            enter = std::max(enter, t0);
            leave = std::min(leave, t1);
        }
        return enter <= leave && leave >= 0.0 && enter <= 1.0;
    }

    static bool CrossesCylinder(const Vector& a, const Vector& b, const double* cyl)
    {
        double px = a.x - cyl[0], py = a.y - cyl[1], pz = a.z - cyl[2];
        double dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
        double qa = dx * dx + dy * dy, qb = 2.0 * (px * dx + py * dy), qc = px * px + py * py - cyl[3] * cyl[3];
        double t0, t1;
        if (qa < 1e-12)
        {
            t0 = qc <= 0.0 ? -INFINITY : INFINITY;
            t1 = qc <= 0.0 ? INFINITY : -INFINITY;
        }
        else
        {
            double disc = qb * qb - 4.0 * qa * qc;
            double root = std::sqrt(std::max(disc, 0.0));
            t0 = disc >= 0 ? (-qb - root) / (2.0 * qa) : INFINITY;
            t1 = disc >= 0 ? (-qb + root) / (2.0 * qa) : -INFINITY;
        }
        double z0, z1;
        Slab(pz, dz, -cyl[4], cyl[4], z0, z1);
        double enter = std::max(t0, z0), leave = std::min(t1, z1);
        return enter <= leave && leave >= 0.0 && enter <= 1.0;
    }

    double DoCalcRxPower(double txPowerDbm, Ptr<MobilityModel> a, Ptr<MobilityModel> b) const override
    {
        int n = Crossings(a->GetPosition(), b->GetPosition());
        if (n > 0 && m_block)
            return -1000.0;
        return txPowerDbm - m_lossDb * n;
    }

    int64_t DoAssignStreams(int64_t stream) override
    {
        return 0;
    }

    double m_lossDb = 0.0;
    bool m_block = false;
    std::vector<double> m_boxes;
    std::vector<double> m_cylinders;
};

class Net
{
  public:
    static constexpr uint16_t kEtherType = 0x88B5; // IEEE 802 local experimental EtherType

    // Recorded events, flat so Python converts each with one numpy call (then calls ClearEvents):
    // deliveries: dInt holds kDInt int64 per row (time, dst, src, tx, size, payload offset, lqi),
    // dReal two doubles per row (rssi, snr), dPayload the payloads back to back;
    // transmit statuses: sInt holds kSInt int64 per row (time, tx, src, dst, acked).
    static constexpr int kDInt = 7;
    static constexpr int kSInt = 5;
    // lost receptions: xInt holds kXInt int64 per row (time, receiver or -1, src, tx, reason), the
    // reasons numbered as netstack.backend.DROP_REASONS
    static constexpr int kXInt = 5;
    enum Reason : int64_t
    {
        kLoss = 0,
        kOutOfRange,
        kDead,
        kCollision,
        kQueue,
        kBelowSensitivity,
        kBusy,
        kHalfDuplex,
        kRetries
    };
    std::vector<int64_t> xInt;
    std::vector<int64_t> dInt;
    std::vector<double> dReal;
    std::string dPayload;
    std::vector<int64_t> sInt;
    // with IP routing, frames each node's MAC passed up: hInt holds kHInt int64 per row (time,
    // receiver, one-hop sender), so a neighbour is whoever was heard, not a datagram's origin
    static constexpr int kHInt = 3;
    std::vector<int64_t> hInt;

    explicit Net(uint32_t n)
        : m_n(n),
          m_listen(n, 0),
          m_alive(n, 1),
          m_snUid(n, UINT64_MAX),
          m_snSignal(n, 0.0),
          m_snNoise(n, 0.0)
    {
        m_nodes.Create(n);
        m_mobility.SetMobilityModel("ns3::ConstantVelocityMobilityModel");
        m_mobility.Install(m_nodes);
        for (uint32_t i = 0; i < n; ++i)
        {
            m_mob.push_back(m_nodes.Get(i)->GetObject<ConstantVelocityMobilityModel>());
        }
    }

    // Obstacles shadow links (call before SetupWifi / SetupLrWpan): see ObstacleLossModel.
    void SetObstacles(double lossDb, bool block, const std::vector<double>& boxes, const std::vector<double>& cylinders)
    {
        m_obstacles = CreateObject<ObstacleLossModel>();
        m_obstacles->Set(lossDb, block, boxes, cylinders);
    }

    // Free-space loss after the path-loss model (call before SetupWifi / SetupLrWpan): a unit disk
    // (ns-3's RangePropagationLossModel) then reports the same RSSI as the fast radio's.
    void ChainFriis(double frequencyHz)
    {
        m_friisHz = frequencyHz;
    }

    // The MAC's limits (call after SetupWifi / SetupLrWpan); a negative value keeps ns-3's default.
    // 802.11: control frames at `controlMode` ("" keeps ns-3's choice), the basic rate set then being
    // the lowest mode and that one; each peer is made known to a MAC before ns-3's ad hoc MAC would
    // add every mandatory rate to the set (see KnowPeer). Retries: FrameRetryLimit (802.11) or
    // macMaxFrameRetries (802.15.4); the queue: frames and (802.11) lifetime.
    std::string LimitMac(const std::string& controlMode, int64_t retryLimit, int64_t queueFrames, int64_t lifetimeNs)
    {
        for (uint32_t i = 0; i < m_n; ++i)
        {
            if (!m_wifi)
            {
                Ptr<lrwpan::LrWpanMac> mac = m_macs[i];
                if (retryLimit >= 0)
                    mac->SetMacMaxFrameRetries(uint8_t(retryLimit));
                if (queueFrames >= 0)
                    mac->SetTxQMaxSize(uint32_t(queueFrames));
                continue;
            }
            Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(m_devices.Get(i));
            if (retryLimit >= 0)
                dev->GetMac()->SetFrameRetryLimit(uint32_t(retryLimit));
            for (Ptr<WifiMacQueue> queue : Queues(dev->GetMac()))
            {
                if (queueFrames >= 0)
                    queue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, uint32_t(queueFrames)));
                if (lifetimeNs >= 0)
                    queue->SetMaxDelay(NanoSeconds(lifetimeNs));
            }
            if (!controlMode.empty())
            {
                Ptr<WifiRemoteStationManager> manager = dev->GetRemoteStationManager();
                manager->AddBasicMode(dev->GetPhy()->GetDefaultMode());
                manager->AddBasicMode(WifiMode(controlMode));
                dev->GetPhy()->TraceConnectWithoutContext("PhyRxBegin", MakeBoundCallback(&Net::PeerHeard, this, i));
            }
        }
        m_knowPeers = !controlMode.empty();
        return "";
    }

    // --- 802.11 ad hoc -------------------------------------------------------------------------
    // Returns "" on success or an error message. lossNames/lossValues are ns-3 attribute pairs.
    std::string SetupWifi(const std::string& standard,
                          const std::string& rateManager,
                          const std::string& dataMode,
                          double txPowerDbm,
                          const std::string& lossType,
                          const std::vector<std::string>& lossNames,
                          const std::vector<std::string>& lossValues,
                          double rxSensitivityDbm,
                          double preambleMinRssiDbm,
                          double preambleThresholdDb,
                          const std::string& channelSettings,
                          int64_t stream,
                          bool sniff,
                          double noiseFigureDb,
                          bool preambleDetection)
    {
        WifiHelper& wifi = m_wifiHelper;
        if (standard == "802.11a")
            wifi.SetStandard(WIFI_STANDARD_80211a);
        else if (standard == "802.11b")
            wifi.SetStandard(WIFI_STANDARD_80211b);
        else if (standard == "802.11g")
            wifi.SetStandard(WIFI_STANDARD_80211g);
        else if (standard == "802.11n")
            wifi.SetStandard(WIFI_STANDARD_80211n);
        else
            return "unknown standard " + standard;
        if (rateManager == "ns3::ConstantRateWifiManager")
        {
            wifi.SetRemoteStationManager(rateManager,
                                         "DataMode", StringValue(dataMode),
                                         "ControlMode", StringValue(dataMode));
        }
        else
        {
            wifi.SetRemoteStationManager(rateManager);
        }
        m_channel = CreateObject<YansWifiChannel>();
        ObjectFactory lossFactory;
        lossFactory.SetTypeId(lossType);
        for (size_t k = 0; k < lossNames.size(); ++k)
        {
            lossFactory.Set(lossNames[k], StringValue(lossValues[k]));
        }
        m_loss = lossFactory.Create<PropagationLossModel>();
        ChainLoss();
        m_channel->SetPropagationLossModel(m_loss);
        m_channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
        m_phy.SetChannel(m_channel);
        m_phy.Set("TxPowerStart", DoubleValue(txPowerDbm));
        m_phy.Set("TxPowerEnd", DoubleValue(txPowerDbm));
        m_phy.Set("RxSensitivity", DoubleValue(rxSensitivityDbm));
        m_phy.Set("RxNoiseFigure", DoubleValue(noiseFigureDb));
        m_txPowerDbm = txPowerDbm;
        m_detectDbm = std::max(preambleMinRssiDbm, rxSensitivityDbm);
        if (!channelSettings.empty())
        {
            m_phy.Set("ChannelSettings", StringValue(channelSettings));
        }
        if (preambleDetection)
            m_phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel",
                                            "MinimumRssi", DoubleValue(preambleMinRssiDbm),
                                            "Threshold", DoubleValue(preambleThresholdDb));
        else
            m_phy.DisablePreambleDetectionModel();
        m_phy.SetPcapDataLinkType(WifiPhyHelper::DLT_IEEE802_11_RADIO);
        m_mac.SetType("ns3::AdhocWifiMac");
        m_devices = wifi.Install(m_phy, m_mac, m_nodes);
        wifi.AssignStreams(m_devices, stream);
        for (uint32_t i = 0; i < m_n; ++i)
        {
            Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(m_devices.Get(i));
            m_addrIndex[Key(dev->GetAddress())] = i;
            m_nodes.Get(i)->RegisterProtocolHandler(MakeCallback(&Net::ReceiveWifi, this), kEtherType, dev);
            if (sniff) // RSSI and SNR of each received frame (not needed when ns-3 routes IP itself)
                dev->GetPhy()->TraceConnectWithoutContext("MonitorSnifferRx",
                                                          MakeBoundCallback(&Net::SniffWifi, this, i));
            dev->GetMac()->TraceConnectWithoutContext("AckedMpdu", MakeBoundCallback(&Net::AckedWifi, this, i));
            dev->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeBoundCallback(&Net::DroppedWifi, this, i));
            dev->GetPhy()->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&Net::PhyDropWifi, this, i));
            dev->GetPhy()->GetState()->TraceConnectWithoutContext("RxError", MakeBoundCallback(&Net::RxErrorWifi, this, i));
            dev->GetMac()->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&Net::CountMacTx, this, i));
            dev->GetPhy()->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Net::CountPhyTx, this, i));
        }
        m_macTx.assign(m_n, 0);
        m_phyTx.assign(m_n, 0);
        for (uint32_t i = 0; i < m_n; ++i)  // the queue our frames enter (802.11n: best effort's)
            m_txQueues.push_back(Queues(DynamicCast<WifiNetDevice>(m_devices.Get(i))->GetMac())[0]);
        m_wifi = true;
        return "";
    }

    // --- 802.15.4 (2.4 GHz O-QPSK, 250 kbit/s), non-beacon mode, one PAN, short addresses i+1 --------
    std::string SetupLrWpan(double txPowerDbm,
                            const std::string& lossType,
                            const std::vector<std::string>& lossNames,
                            const std::vector<std::string>& lossValues,
                            uint32_t channelNumber,
                            int64_t stream,
                            double sensitivityDbm,
                            double noiseFigureDb)
    {
        if (channelNumber < 11 || channelNumber > 26)
            return "802.15.4 channel must be within 11..26";
        m_txPowerDbm = txPowerDbm;
        m_detectDbm = sensitivityDbm;
        ObjectFactory lossFactory;
        lossFactory.SetTypeId(lossType);
        for (size_t k = 0; k < lossNames.size(); ++k)
            lossFactory.Set(lossNames[k], StringValue(lossValues[k]));
        m_loss = lossFactory.Create<PropagationLossModel>();
        ChainLoss();
        m_spectrum = CreateObject<SingleModelSpectrumChannel>();
        m_spectrum->AddPropagationLossModel(m_loss);
        m_spectrum->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
        m_lrwpan = std::make_unique<LrWpanHelper>();
        m_lrwpan->SetChannel(m_spectrum);
        m_devices = m_lrwpan->Install(m_nodes);
        lrwpan::LrWpanSpectrumValueHelper svh;
        svh.SetNoiseFactor(std::pow(10.0, noiseFigureDb / 10.0));
        m_lrNoiseDbm = 10.0 * std::log10(1000.0 * lrwpan::LrWpanSpectrumValueHelper::TotalAvgPower(
                                                       svh.CreateNoisePowerSpectralDensity(channelNumber), channelNumber));
        for (uint32_t i = 0; i < m_n; ++i)
        {
            Ptr<lrwpan::LrWpanNetDevice> dev = DynamicCast<lrwpan::LrWpanNetDevice>(m_devices.Get(i));
            Ptr<lrwpan::LrWpanMac> mac = dev->GetMac();
            mac->SetShortAddress(Mac16Address(uint16_t(i + 1)));
            uint8_t ext[8] = {0x02, 0, 0, 0, uint8_t(i >> 24), uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i)};
            Mac64Address e;
            e.CopyFrom(ext);
            mac->SetExtendedAddress(e);
            mac->SetPanId(1);
            mac->SetMcpsDataIndicationCallback(MakeBoundCallback(&Net::ReceiveLrWpan, this, i));
            mac->SetMcpsDataConfirmCallback(MakeBoundCallback(&Net::ConfirmLrWpan, this, i));
            Ptr<lrwpan::LrWpanPhy> phy = dev->GetPhy();
            Ptr<lrwpan::PhyPibAttributes> pib = Create<lrwpan::PhyPibAttributes>();
            pib->phyCurrentChannel = channelNumber;
            phy->PlmeSetAttributeRequest(lrwpan::PhyPibAttributeIdentifier::phyCurrentChannel, pib);
            phy->SetTxPowerSpectralDensity(svh.CreateTxPowerSpectralDensity(txPowerDbm, channelNumber));
            phy->SetNoisePowerSpectralDensity(svh.CreateNoisePowerSpectralDensity(channelNumber));
            phy->SetRxSensitivity(sensitivityDbm);
            phy->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&Net::PhyDropLrWpan, this, i));
            phy->TraceConnectWithoutContext("PhyRxBegin", MakeBoundCallback(&Net::RxBeginLrWpan, this, i));
            phy->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Net::TxBeginLrWpan, this, i));
            phy->TraceConnectWithoutContext("PhyTxEnd", MakeBoundCallback(&Net::TxEndLrWpan, this, i));
            mac->TraceConnectWithoutContext("MacRxDrop", MakeBoundCallback(&Net::PhyDropLrWpan, this, i));
            m_macs.push_back(mac);
        }
        m_lrwpan->AssignStreams(m_devices, stream);
        m_handles.assign(m_n, std::vector<Pending>(256, Pending{-1, -1, -1}));
        m_broadcastHandles.assign(m_n, std::vector<int64_t>(256, -1));
        m_txBegin.assign(m_n, -1);
        m_txEnd.assign(m_n, -1);
        m_nextHandle.assign(m_n, 0);
        m_wifi = false;
        return "";
    }

    // --- IPv4 with ns-3's own routing (baselines) -----------------------------------------------------
    // Call after SetupWifi. Installs IPv4 with AODV, OLSR or DSDV on the Wi-Fi devices (10.0.0.0/16,
    // node i at 10.0.x.y = i + 1) and one UDP socket per node on `port`; from then on Send() carries the
    // payload as one UDP datagram to the destination's address (broadcast: 10.0.255.255), and datagrams
    // received are recorded like frames (src = the sending node). Routing traffic is counted, not recorded.
    // `attributes`: "Name=value" lines set on the protocol (checked in Python beforehand).
    std::string SetupInternet(const std::string& routing, uint16_t port, int64_t stream, const std::string& attributes)
    {
        if (!m_wifi)
            return "IP routing needs the 802.11 radio";
        InternetStackHelper& internet = m_internet;
        AodvHelper aodv;
        OlsrHelper olsr;
        DsdvHelper dsdv;
        std::istringstream lines(attributes);
        for (std::string line; std::getline(lines, line);)
        {
            size_t eq = line.find('=');
            if (eq == std::string::npos)
                continue;
            std::string name = line.substr(0, eq), value = line.substr(eq + 1);
            if (routing == "aodv")
                aodv.Set(name, StringValue(value));
            else if (routing == "olsr")
                olsr.Set(name, StringValue(value));
            else if (routing == "dsdv")
                dsdv.Set(name, StringValue(value));
        }
        if (routing == "aodv")
            internet.SetRoutingHelper(aodv);
        else if (routing == "olsr")
            internet.SetRoutingHelper(olsr);
        else if (routing == "dsdv")
            internet.SetRoutingHelper(dsdv);
        else
            return "unknown IP routing protocol " + routing;
        internet.Install(m_nodes);
        stream += internet.AssignStreams(m_nodes, stream);
        if (routing == "aodv")
            aodv.AssignStreams(m_nodes, stream);
        else if (routing == "olsr")
            olsr.AssignStreams(m_nodes, stream);
        else  // DsdvHelper has no AssignStreams: fix each protocol's stream, or the run would depend on
              // how many random streams earlier runs in this process took
            for (uint32_t i = 0; i < m_n; ++i)
            {
                Ptr<dsdv::RoutingProtocol> proto =
                    DynamicCast<dsdv::RoutingProtocol>(m_nodes.Get(i)->GetObject<Ipv4>()->GetRoutingProtocol());
                if (proto)
                    stream += proto->AssignStreams(stream);
            }
        Ipv4AddressHelper addresses;
        addresses.SetBase("10.0.0.0", "255.255.0.0");
        m_ifaces = addresses.Assign(m_devices);
        m_port = port;
        for (uint32_t i = 0; i < m_n; ++i)
        {
            m_ipIndex[m_ifaces.GetAddress(i).Get()] = i;
            Ptr<Socket> socket = Socket::CreateSocket(m_nodes.Get(i), UdpSocketFactory::GetTypeId());
            socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
            socket->SetAllowBroadcast(true);
            socket->SetIpRecvTtl(true);  // the hop count of a delivered datagram, from its TTL
            socket->SetRecvCallback(MakeCallback(&Net::ReceiveUdp, this));
            m_sockets.push_back(socket);
            Ptr<Ipv4L3Protocol> l3 = m_nodes.Get(i)->GetObject<Ipv4L3Protocol>();
            l3->TraceConnectWithoutContext("Tx", MakeCallback(&Net::IpTx, this));
            l3->TraceConnectWithoutContext("UnicastForward", MakeBoundCallback(&Net::IpForward, this, i));
            l3->TraceConnectWithoutContext("Drop", MakeBoundCallback(&Net::IpDrop, this, i));
            m_nodes.Get(i)->GetObject<ArpL3Protocol>()->TraceConnectWithoutContext(
                "Drop", MakeBoundCallback(&Net::ArpDrop, this, i));
            l3->GetInterface(1)->GetArpCache()->TraceConnectWithoutContext(
                "Drop", MakeBoundCallback(&Net::ArpDrop, this, i));  // pending datagrams of an unanswered request
            Ptr<WifiMac> mac = DynamicCast<WifiNetDevice>(m_devices.Get(i))->GetMac();
            mac->TraceConnectWithoutContext("DroppedMpdu", MakeBoundCallback(&Net::MacDrop, this, i));
            for (Ptr<WifiMacQueue> queue : Queues(mac))
                queue->TraceConnectWithoutContext("Expired", MakeBoundCallback(&Net::MacExpired, this, i));
            DynamicCast<WifiNetDevice>(m_devices.Get(i))->GetMac()->TraceConnectWithoutContext(
                "MacRx", MakeBoundCallback(&Net::MacRx, this, i));
            m_nodes.Get(i)->RegisterProtocolHandler(MakeBoundCallback(&Net::Heard, this, i), 0, m_devices.Get(i), true);
        }
        m_ip = true;
        return "";
    }

    int64_t ControlPackets() const { return m_ctlPackets; }
    // 802.11: frames each node's MAC took from above (data, routing, ARP) and transmissions its PHY
    // began (those frames, their retransmissions, ACKs)
    int64_t MacFramesQueued(uint32_t node) const { return m_macTx.empty() ? 0 : m_macTx[node]; }
    int64_t PhyTransmissions(uint32_t node) const { return m_phyTx.empty() ? 0 : m_phyTx[node]; }
    // data forwarded or dropped inside ns-3's IP stack: kIpEvent int64 per row
    // (time, node, kind 0 forward / 1 drop, src, dst, port, seq, hops after this hop or the drop reason)
    static constexpr int kIpEvent = 8;
    int64_t IpEventRows() const { return int64_t(m_ipEvents.size() / kIpEvent); }
    intptr_t IpEventsAddr() const { return reinterpret_cast<intptr_t>(m_ipEvents.data()); }
    int64_t FramesReceived(uint32_t node) const { return m_macRx.empty() ? 0 : m_macRx[node]; }
    int64_t ControlBytes() const { return m_ctlBytes; }

    void EnablePcap(const std::string& prefix)
    {
        if (m_wifi)
            m_phy.EnablePcap(prefix, m_devices, false);
        else if (m_lrwpan)
            m_lrwpan->EnablePcap(prefix, m_devices, true);
    }

    // --- time and traffic ------------------------------------------------------------------------
    void SetPositions(const double* xyz, const double* vel, size_t n)
    {
        for (size_t i = 0; i < n && i < m_n; ++i)
        {
            m_mob[i]->SetPosition(Vector(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]));
            m_mob[i]->SetVelocity(Vector(vel[3 * i], vel[3 * i + 1], vel[3 * i + 2]));
        }
    }

    void SetListening(uint32_t node, bool listening) { m_listen[node] = listening ? 1 : 0; }

    // A dead node's radio is off: it neither receives nor acknowledges (its losses read `dead`).
    void SetAlive(uint32_t node, bool alive)
    {
        m_alive[node] = alive ? 1 : 0;
        if (m_wifi)
        {
            Ptr<WifiPhy> phy = DynamicCast<WifiNetDevice>(m_devices.Get(node))->GetPhy();
            if (alive)
                phy->ResumeFromSleep();
            else
                phy->SetSleepMode(true);
        }
        else if (node < m_macs.size())
            m_macs[node]->SetRxOnWhenIdle(alive);
    }

    // Frames whose first byte is `kind` do not stop the simulation; they reach Python with the next
    // event, stamped with their own receive time (for frames whose handling never transmits).
    void SetPassive(uint32_t kind, bool passive) { m_passive[kind & 0xFF] = passive ? 1 : 0; }

    // Queue a frame from src to dst (-1: broadcast) at the current time; returns its tx id.
    int64_t Send(uint32_t src, int64_t dst, const std::string& payload)
    {
        return SendAt(src, dst, payload, Simulator::Now().GetNanoSeconds());
    }

    // The same at an absolute time >= now (used to pre-schedule traffic for baselines).
    int64_t SendAt(uint32_t src, int64_t dst, const std::string& payload, int64_t atNs)
    {
        int64_t tx = m_nextTx++;
        Ptr<Packet> p = Create<Packet>(reinterpret_cast<const uint8_t*>(payload.data()), payload.size());
        if (m_ip)
            ; // end-to-end datagrams: no per-frame status
        else if (dst >= 0)
            m_unicast[p->GetUid()] = {tx, static_cast<int64_t>(src), dst};
        else
            m_broadcastTx[p->GetUid()] = Pending{tx, static_cast<int64_t>(src), -1};
        Time delay = NanoSeconds(atNs) - Simulator::Now();
        Simulator::ScheduleWithContext(src, delay.IsNegative() ? Seconds(0) : delay, &Net::DoSend, this, src, dst, p);
        return tx;
    }

    // Run until `until` ns, or until just after the first event Python must see. Returns the time reached.
    // Events recorded by the previous call are discarded first (Python has copied them); afterwards
    // Header() describes what was recorded, so Python reads it without further calls.
    int64_t Advance(int64_t until)
    {
        ClearEvents();
        int64_t now = Simulator::Now().GetNanoSeconds();
        if (until > now)
        {
            m_stopEvent = Simulator::Stop(NanoSeconds(until - now));
            Simulator::Run();
            if (m_stopEvent.IsPending())
                Simulator::Cancel(m_stopEvent);
            now = Simulator::Now().GetNanoSeconds();
        }
        m_header[0] = int64_t(dInt.size() / kDInt);
        m_header[1] = int64_t(sInt.size() / kSInt);
        m_header[2] = int64_t(dPayload.size());
        m_header[3] = reinterpret_cast<int64_t>(dInt.data());
        m_header[4] = reinterpret_cast<int64_t>(dReal.data());
        m_header[5] = reinterpret_cast<int64_t>(sInt.data());
        m_header[6] = reinterpret_cast<int64_t>(dPayload.data());
        m_header[7] = int64_t(xInt.size() / kXInt);
        m_header[8] = int64_t(hInt.size() / kHInt);
        return now;
    }

    // delivery rows, status rows, payload bytes, then the addresses of dInt, dReal, sInt, dPayload
    intptr_t HeaderAddr() const { return reinterpret_cast<intptr_t>(m_header); }

    void ClearEvents()
    {
        dInt.clear();
        dReal.clear();
        dPayload.clear();
        sInt.clear();
        xInt.clear();
        hInt.clear();
    }

    intptr_t XIntAddr() const { return reinterpret_cast<intptr_t>(xInt.data()); }
    intptr_t HIntAddr() const { return reinterpret_cast<intptr_t>(hInt.data()); }

    int64_t NowNs() const { return Simulator::Now().GetNanoSeconds(); }

    // Addresses of the record buffers, for zero-overhead reads from Python (ctypes + numpy).
    intptr_t DIntAddr() const { return reinterpret_cast<intptr_t>(dInt.data()); }
    intptr_t DRealAddr() const { return reinterpret_cast<intptr_t>(dReal.data()); }
    intptr_t SIntAddr() const { return reinterpret_cast<intptr_t>(sInt.data()); }
    intptr_t PayloadAddr() const { return reinterpret_cast<intptr_t>(dPayload.data()); }

    double RxPowerDbm(uint32_t a, uint32_t b, double txPowerDbm) const
    {
        return m_loss->CalcRxPower(txPowerDbm, m_mob[a], m_mob[b]);
    }

  private:
    struct Pending
    {
        int64_t tx, src, dst;
        int64_t reason = -1;     // unicast: why the destination last failed to receive it
        bool delivered = false;  // unicast: the destination received it (a lost ACK is no lost reception)
    };

    static uint64_t Key(const Address& address)
    {
        uint8_t b[6];
        Mac48Address::ConvertFrom(address).CopyTo(b);
        uint64_t k = 0;
        for (uint8_t x : b)
            k = (k << 8) | x;
        return k;
    }

    int64_t IndexOf(const Address& address) const
    {
        auto it = m_addrIndex.find(Key(address));
        return it == m_addrIndex.end() ? -1 : it->second;
    }

    void DoSend(uint32_t src, int64_t dst, Ptr<Packet> p)
    {
        if (!m_alive[src])
            return;
        if (m_ip)
        {
            Ipv4Address to = dst < 0 ? Ipv4Address("10.0.255.255") : m_ifaces.GetAddress(uint32_t(dst));
            if (m_sockets[src]->SendTo(p, 0, InetSocketAddress(to, m_port)) < 0)
            {  // the protocol had no route at the source: the socket refuses the datagram (no IP trace)
                uint8_t d[12];
                if (p->GetSize() >= sizeof d)
                {
                    p->CopyData(d, sizeof d);
                    int64_t ids[4];
                    HeaderIds(d, ids);
                    IpEvent(src, 1, ids, 2);  // DROP_NO_ROUTE
                }
            }
            return;
        }
        if (!m_wifi)
        {
            lrwpan::McpsDataRequestParams params;
            params.m_srcAddrMode = lrwpan::SHORT_ADDR;
            params.m_dstAddrMode = lrwpan::SHORT_ADDR;
            params.m_dstPanId = 1;
            params.m_dstAddr = dst < 0 ? Mac16Address("ff:ff") : Mac16Address(uint16_t(dst + 1));
            uint8_t handle = m_nextHandle[src]++;
            params.m_msduHandle = handle;
            params.m_txOptions = dst < 0 ? lrwpan::TX_OPTION_NONE : lrwpan::TX_OPTION_ACK;
            auto it = m_unicast.find(p->GetUid());
            m_handles[src][handle] = it != m_unicast.end() ? it->second : Pending{-1, -1, -1};
            auto bt = m_broadcastTx.find(p->GetUid());
            m_broadcastHandles[src][handle] = bt != m_broadcastTx.end() ? bt->second.tx : -1;
            m_macs[src]->McpsDataRequest(params, p);
            return;
        }
        Address to = dst < 0 ? Address(Mac48Address::GetBroadcast()) : m_devices.Get(uint32_t(dst))->GetAddress();
        if (m_knowPeers && dst >= 0)
            KnowPeer(src, Mac48Address::ConvertFrom(to));
        Ptr<WifiMacQueue> queue = m_txQueues[src];
        int64_t before = queue->GetNPackets();
        uint64_t drops = m_macDrops;
        m_devices.Get(src)->Send(p, to, kEtherType);
        // ns-3 refuses a frame at a full queue without a trace: a full queue that did not grow (less
        // what expired meanwhile, which is reported) refused it
        if (before >= int64_t(queue->GetMaxSize().GetValue()) &&
            int64_t(queue->GetNPackets()) <= before - int64_t(m_macDrops - drops))
            Refused(src, p->GetUid());
    }

    void Stop() { Simulator::Stop(); }

    void ReceiveWifi(Ptr<NetDevice> dev, Ptr<const Packet> p, uint16_t, const Address& from, const Address&,
                     NetDevice::PacketType)
    {
        uint32_t me = dev->GetNode()->GetId();
        if (!m_alive[me])
        {
            Lost(me, p->GetUid(), kDead);
            return;
        }
        int64_t src = IndexOf(from);
        auto it = m_unicast.find(p->GetUid());
        int64_t tx = it != m_unicast.end() ? it->second.tx : -1;
        if (it != m_unicast.end() && it->second.dst == int64_t(me))
            it->second.delivered = true;
        if (tx < 0)
        {
            auto b = m_broadcastTx.find(p->GetUid());
            tx = b != m_broadcastTx.end() ? b->second.tx : -1;
        }
        bool sniffed = m_snUid[me] == p->GetUid();
        double rssi = sniffed ? m_snSignal[me] : std::nan("");
        Record(me, src, tx, rssi, sniffed ? m_snSignal[me] - m_snNoise[me] : std::nan(""), -1, p);
    }

    void ReceiveUdp(Ptr<Socket> socket)
    {
        Address from;
        Ptr<Packet> p;
        while ((p = socket->RecvFrom(from)))
        {
            uint32_t me = socket->GetNode()->GetId();
            if (!m_alive[me])
                continue;
            auto it = m_ipIndex.find(InetSocketAddress::ConvertFrom(from).GetIpv4().Get());
            int64_t src = it == m_ipIndex.end() ? -1 : it->second;
            SocketIpTtlTag ttl;
            int hops = p->RemovePacketTag(ttl) ? kFirstTtl - int(ttl.GetTtl()) : -1;
            Record(me, src, -1, std::nan(""), std::nan(""), -1, p, hops);
        }
    }

    // the data header in a UDP datagram to our port: (src, dst, port, seq), or nothing
    bool DataIds(const Ipv4Header& ip, Ptr<const Packet> packet, int64_t ids[4]) const
    {
        return ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER && UdpIds(packet, 0, ids);
    }

    // the same from the bytes of `packet` at `offset`, which start with a UDP header
    bool UdpIds(Ptr<const Packet> packet, uint32_t offset, int64_t ids[4]) const
    {
        uint8_t b[64];
        if (packet->GetSize() < offset + 8 + 12)
            return false;
        packet->CopyData(b, std::min<uint32_t>(packet->GetSize(), sizeof b));
        const uint8_t* u = b + offset;
        if (((uint32_t(u[2]) << 8) | u[3]) != m_port)  // UDP destination port, network order
            return false;
        HeaderIds(u + 8, ids);
        return true;
    }

    // our 12-byte data header (kind, src, dst, port as uint16, seq as uint32, hops; little-endian)
    // -> (src, dst, port, seq), dst -1 for broadcast
    static void HeaderIds(const uint8_t* d, int64_t ids[4])
    {
        ids[0] = d[1] | (d[2] << 8);
        int64_t dst = d[3] | (d[4] << 8);
        ids[1] = dst == 0xFFFF ? -1 : dst;
        ids[2] = d[5] | (d[6] << 8);
        ids[3] = int64_t(d[7]) | (int64_t(d[8]) << 8) | (int64_t(d[9]) << 16) | (int64_t(d[10]) << 24);
    }

    void IpEvent(uint32_t node, int64_t kind, const int64_t ids[4], int64_t value)
    {
        int64_t row[kIpEvent] = {Simulator::Now().GetNanoSeconds(), node, kind, ids[0], ids[1], ids[2], ids[3], value};
        m_ipEvents.insert(m_ipEvents.end(), row, row + kIpEvent);
    }

    // a node forwards a datagram (its TTL already decremented): hops after this hop = kFirstTtl - ttl
    static void IpForward(Net* self, uint32_t node, const Ipv4Header& ip, Ptr<const Packet> packet, uint32_t)
    {
        int64_t ids[4];
        if (self->DataIds(ip, packet, ids))
            self->IpEvent(node, 0, ids, kFirstTtl - int64_t(ip.GetTtl()));
    }

    static void IpDrop(Net* self, uint32_t node, const Ipv4Header& ip, Ptr<const Packet> packet,
                       Ipv4L3Protocol::DropReason reason, Ptr<Ipv4>, uint32_t)
    {
        int64_t ids[4];
        if (self->DataIds(ip, packet, ids))
            self->IpEvent(node, 1, ids, int64_t(reason));
    }

    // the MAC gave up on a frame carrying one of our datagrams (LLC/SNAP 8 B, IPv4 20 B, then UDP)
    static void MacDrop(Net* self, uint32_t node, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
    {
        Ptr<const Packet> msdu = mpdu->GetPacket();
        uint8_t b[30];
        if (msdu->GetSize() < sizeof b)
            return;
        msdu->CopyData(b, sizeof b);
        if (b[6] != 0x08 || b[7] != 0x00 || b[8 + 9] != UdpL4Protocol::PROT_NUMBER)
            return;
        int64_t ids[4];
        if (self->UdpIds(msdu, 8 + 4 * (b[8] & 0x0F), ids))
            self->IpEvent(node, 1, ids, 100 + int64_t(reason));
    }

    // a frame waited in the MAC queue longer than its lifetime (the queue's MaxDelay)
    static void MacExpired(Net* self, uint32_t node, Ptr<const WifiMpdu> mpdu)
    {
        MacDrop(self, node, WIFI_MAC_DROP_EXPIRED_LIFETIME, mpdu);
    }


    // ARP found no answer for the next hop: the datagrams waiting for it are dropped (with their IPv4
    // header put back, or without it, depending on the path; both are read)
    static void ArpDrop(Net* self, uint32_t node, Ptr<const Packet> packet)
    {
        uint8_t b[1];
        if (packet->GetSize() < 1)
            return;
        packet->CopyData(b, 1);
        uint32_t offset = (b[0] >> 4) == 4 ? 4 * (b[0] & 0x0F) : 0;
        int64_t ids[4];
        if (self->UdpIds(packet, offset, ids))
            self->IpEvent(node, 1, ids, 200);
    }

    static void CountMacTx(Net* self, uint32_t node, Ptr<const Packet>) { self->m_macTx[node] += 1; }
    static void CountPhyTx(Net* self, uint32_t node, Ptr<const Packet>, double) { self->m_phyTx[node] += 1; }

    // every frame a node's MAC passed up (data, routing, ARP), with its one-hop sender
    static void Heard(Net* self, uint32_t me, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address& from,
                      const Address&, NetDevice::PacketType)
    {
        auto it = self->m_addrIndex.find(Key(from));
        if (it == self->m_addrIndex.end())
            return;
        int64_t row[kHInt] = {Simulator::Now().GetNanoSeconds(), int64_t(me), int64_t(it->second)};
        self->hInt.insert(self->hInt.end(), row, row + kHInt);
    }

    static void MacRx(Net* self, uint32_t node, Ptr<const Packet>)
    {
        if (self->m_macRx.empty())
            self->m_macRx.assign(self->m_n, 0);
        self->m_macRx[node] += 1;
    }

    // every IPv4 packet a node transmits (each hop); UDP to a port other than ours is routing traffic
    void IpTx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
    {
        Ptr<Packet> copy = packet->Copy();
        Ipv4Header ip;
        copy->RemoveHeader(ip);
        if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
            return;
        UdpHeader udp;
        copy->PeekHeader(udp);
        if (udp.GetDestinationPort() == m_port)
            return;
        m_ctlPackets += 1;
        m_ctlBytes += int64_t(copy->GetSize()) - int64_t(udp.GetSerializedSize()); // the routing message
    }

    static void ReceiveLrWpan(Net* self, uint32_t me, lrwpan::McpsDataIndicationParams params, Ptr<Packet> p)
    {
        if (!self->m_alive[me])
        {
            self->Lost(me, p->GetUid(), kDead);
            return;
        }
        auto un = self->m_unicast.find(p->GetUid());
        if (un != self->m_unicast.end() && un->second.dst == int64_t(me))
            un->second.delivered = true;
        uint8_t b[2];
        params.m_srcAddr.CopyTo(b);
        int64_t src = ((int64_t(b[0]) << 8) | b[1]) - 1;
        int64_t tx = -1;
        auto it = self->m_unicast.find(p->GetUid());
        if (it != self->m_unicast.end())
            tx = it->second.tx;
        else
        {
            auto bt = self->m_broadcastTx.find(p->GetUid());
            tx = bt != self->m_broadcastTx.end() ? bt->second.tx : -1;
        }
        // 802.15.4 reports LQI, not RSSI: RSSI is the channel's loss model applied to the tx power
        // where the reception began (at its end the robots may have moved out of a unit disk's range)
        double rssi = self->m_snUid[me] == p->GetUid() ? self->m_snSignal[me]
                      : (src >= 0 && src < int64_t(self->m_n))
                          ? self->m_loss->CalcRxPower(self->m_txPowerDbm, self->m_mob[src], self->m_mob[me])
                          : std::nan("");
        self->Record(me, src, tx, rssi, rssi - self->m_lrNoiseDbm, params.m_mpduLinkQuality, p);
    }

    static void ConfirmLrWpan(Net* self, uint32_t node, lrwpan::McpsDataConfirmParams params)
    {
        Pending pend = self->m_handles[node][params.m_msduHandle];
        bool ok = params.m_status == lrwpan::MacStatus::SUCCESS;
        if (pend.tx < 0)
        {
            // a broadcast: its MAC gave it up before sending (channel access, a full queue)
            if (!ok)
                self->RecordDrop(-1, node, self->m_broadcastHandles[node][params.m_msduHandle],
                                 params.m_status == lrwpan::MacStatus::CHANNEL_ACCESS_FAILURE ? kBusy : kQueue);
            return;
        }
        self->m_handles[node][params.m_msduHandle] = Pending{-1, -1, -1};
        uint64_t uid = self->UidOfTx(pend.tx);
        auto it = self->m_unicast.find(uid);
        if (!ok && it != self->m_unicast.end())
            self->GaveUp(it->second, params.m_status == lrwpan::MacStatus::CHANNEL_ACCESS_FAILURE ? kBusy
                                     : params.m_status == lrwpan::MacStatus::NO_ACK                 ? -1
                                                                                                     : kQueue);
        self->m_unicast.erase(uid);
        self->RecordStatus(pend, ok);
    }

    void ChainLoss()
    {
        Ptr<PropagationLossModel> last = m_loss;
        if (m_friisHz > 0)
        {
            Ptr<FriisPropagationLossModel> friis = CreateObject<FriisPropagationLossModel>();
            friis->SetFrequency(m_friisHz);
            last->SetNext(friis);
            last = friis;
        }
        if (m_obstacles)
            last->SetNext(m_obstacles);
    }

    uint64_t UidOfTx(int64_t tx) const
    {
        for (const auto& kv : m_unicast)
            if (kv.second.tx == tx)
                return kv.first;
        return UINT64_MAX;
    }

    // `hops` >= 0: written into the data header's hop byte (ns-3's IP delivers it unchanged otherwise)
    void Record(uint32_t me, int64_t src, int64_t tx, double rssi, double snr, int64_t lqi, Ptr<const Packet> p,
                int hops = -1)
    {
        Seen(p->GetUid(), me);
        uint32_t size = p->GetSize();
        int64_t row[kDInt] = {Simulator::Now().GetNanoSeconds(), me, src, tx, size, int64_t(dPayload.size()), lqi};
        dInt.insert(dInt.end(), row, row + kDInt);
        dReal.push_back(rssi);
        dReal.push_back(snr);
        size_t at = dPayload.size();
        dPayload.resize(at + size);
        p->CopyData(reinterpret_cast<uint8_t*>(&dPayload[at]), size);
        if (hops >= 0 && size >= 12)
            dPayload[at + 11] = char(std::min(hops, 255));
        if (m_listen[me] && !(size > 0 && m_passive[uint8_t(dPayload[at])]))
            Stop();
    }

    void RecordStatus(const Pending& pend, bool acked)
    {
        int64_t row[kSInt] = {Simulator::Now().GetNanoSeconds(), pend.tx, pend.src, pend.dst, acked ? 1 : 0};
        sInt.insert(sInt.end(), row, row + kSInt);
        if (m_listen[pend.src])
            Stop();
    }

    // The MAC's transmit queues: the DCF's, or one per access category where the MAC has QoS (802.11n)
    static std::vector<Ptr<WifiMacQueue>> Queues(Ptr<WifiMac> mac)
    {
        if (!mac->GetQosSupported())
            return {mac->GetTxop()->GetWifiMacQueue()};
        return {mac->GetQosTxop(AC_BE)->GetWifiMacQueue(), mac->GetQosTxop(AC_BK)->GetWifiMacQueue(),
                mac->GetQosTxop(AC_VI)->GetWifiMacQueue(), mac->GetQosTxop(AC_VO)->GetWifiMacQueue()};
    }

    // A peer registered with every mode the PHY has, as ns-3's ad hoc MAC registers a new one, but
    // without adding the mandatory modes to the basic rate set (which would set the ACK rate).
    void KnowPeer(uint32_t node, Mac48Address peer)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(m_devices.Get(node));
        Ptr<WifiRemoteStationManager> manager = dev->GetRemoteStationManager();
        if (!manager->IsBrandNew(peer))
            return;
        for (const auto& mode : dev->GetPhy()->GetModeList())
            manager->AddSupportedMode(peer, mode);
        manager->RecordDisassociated(peer);
    }

    // a frame begins at a node: its sender becomes known before the MAC sees the frame
    static void PeerHeard(Net* self, uint32_t node, Ptr<const Packet> p, RxPowerWattPerChannelBand)
    {
        WifiMacHeader header;
        if (p->GetSize() < 24 || p->PeekHeader(header) == 0 || !(header.IsData() || header.IsMgt()))
            return;
        self->KnowPeer(node, header.GetAddr2());
    }

    static void SniffWifi(Net* self, uint32_t node, Ptr<const Packet> p, uint16_t, WifiTxVector, MpduInfo,
                          SignalNoiseDbm sn, uint16_t)
    {
        self->m_snUid[node] = p->GetUid();
        self->m_snSignal[node] = sn.signal;
        self->m_snNoise[node] = sn.noise;
    }

    void Status(uint64_t uid, bool acked)
    {
        auto it = m_unicast.find(uid);
        if (it == m_unicast.end())
            return;
        Pending pend = it->second;
        m_unicast.erase(it);
        RecordStatus(pend, acked);
    }

    static void AckedWifi(Net* self, uint32_t, Ptr<const WifiMpdu> mpdu)
    {
        self->Status(mpdu->GetPacket()->GetUid(), true);
    }

    // what we recorded of the frame with this uid when we sent it (unicast or broadcast), or null
    const Pending* Sent(uint64_t uid) const
    {
        auto it = m_unicast.find(uid);
        if (it != m_unicast.end())
            return &it->second;
        auto bt = m_broadcastTx.find(uid);
        return bt != m_broadcastTx.end() ? &bt->second : nullptr;
    }

    // a frame the full MAC queue of `node` refused: lost at its destination (or all, a broadcast)
    void Refused(uint32_t node, uint64_t uid)
    {
        auto it = m_unicast.find(uid);
        if (it != m_unicast.end())
            GaveUp(it->second, kQueue);
        else
        {
            auto b = m_broadcastTx.find(uid);
            if (b != m_broadcastTx.end())
                RecordDrop(-1, node, b->second.tx, kQueue);
        }
        Status(uid, false);
    }

    static void DroppedWifi(Net* self, uint32_t node, WifiMacDropReason why, Ptr<const WifiMpdu> mpdu)
    {
        self->m_macDrops += 1;
        uint64_t uid = mpdu->GetPacket()->GetUid();
        int64_t reason = why == WIFI_MAC_DROP_REACHED_RETRY_LIMIT ? -1 : kQueue;
        auto it = self->m_unicast.find(uid);
        if (it != self->m_unicast.end())
            self->GaveUp(it->second, reason);
        else
        {
            auto b = self->m_broadcastTx.find(uid);
            if (b != self->m_broadcastTx.end() && !self->m_ip)
                self->RecordDrop(-1, node, b->second.tx, kQueue);
        }
        self->Status(uid, false);
    }

    // ns-3's PHY lost a frame at `me` (wifi PhyRxDrop, with its reason)
    static void PhyDropWifi(Net* self, uint32_t me, Ptr<const Packet> p, WifiPhyRxfailureReason why)
    {
        int64_t reason = kCollision;
        switch (why)
        {
        case RXING:
        case BUSY_DECODING_PREAMBLE:
        case PREAMBLE_DETECTION_PACKET_SWITCH:
        case FRAME_CAPTURE_PACKET_SWITCH:
            reason = kBusy;
            break;
        case TXING:
        case RECEPTION_ABORTED_BY_TX:
        case SIGNAL_DETECTION_ABORTED_BY_TX:
            reason = kHalfDuplex;
            break;
        default:
            break;
        }
        self->Lost(me, p->GetUid(), reason);
    }

    // the payload of a frame `me` was receiving failed to decode (its SINR)
    static void RxErrorWifi(Net* self, uint32_t me, Ptr<const Packet> p, double)
    {
        self->Lost(me, p->GetUid(), kCollision);
    }

    // The PHY locked onto a frame: its received power now, where the channel computed it (one slot
    // per node, as a PHY receives one frame at a time; shared with 802.11's sniffer, one radio per Net).
    static void RxBeginLrWpan(Net* self, uint32_t me, Ptr<const Packet> p)
    {
        const Pending* sent = self->Sent(p->GetUid());
        int64_t src = sent != nullptr ? sent->src : -1;
        if (src < 0 || src >= int64_t(self->m_n))
            return;
        self->m_snUid[me] = p->GetUid();
        self->m_snSignal[me] = self->m_loss->CalcRxPower(self->m_txPowerDbm, self->m_mob[src], self->m_mob[me]);
    }

    static void PhyDropLrWpan(Net* self, uint32_t me, Ptr<const Packet> p)
    {
        self->Lost(me, p->GetUid(), kCollision);
    }

    // 802.15.4's PHY ignores, without a trace, frames that reach a radio busy transmitting or turning
    // around; so each broadcast is closed 1 ms after it ends: every live node in range with neither
    // a delivery nor a drop gets one (half_duplex if it transmitted meanwhile, else busy).
    static void TxBeginLrWpan(Net* self, uint32_t node, Ptr<const Packet> p)
    {
        int64_t now = Simulator::Now().GetNanoSeconds();
        self->m_txBegin[node] = now;
        self->m_txEnd[node] = -1;
        auto b = self->m_broadcastTx.find(p->GetUid());
        if (b != self->m_broadcastTx.end() && b->second.src == int64_t(node))
            self->m_watch[p->GetUid()] = Watch{now, std::vector<uint8_t>(self->m_n, 0)};
    }

    static void TxEndLrWpan(Net* self, uint32_t node, Ptr<const Packet> p)
    {
        self->m_txEnd[node] = Simulator::Now().GetNanoSeconds();
        if (self->m_watch.count(p->GetUid()))
            Simulator::Schedule(MilliSeconds(1), &Net::CloseBroadcast, self, p->GetUid());
    }

    void CloseBroadcast(uint64_t uid)
    {
        auto w = m_watch.find(uid);
        auto b = m_broadcastTx.find(uid);
        if (w == m_watch.end() || b == m_broadcastTx.end())
            return;
        const Pending& pend = b->second;
        int64_t start = w->second.start;
        for (uint32_t j = 0; j < m_n; ++j)
        {
            if (int64_t(j) == pend.src || w->second.seen[j] ||
                m_loss->CalcRxPower(m_txPowerDbm, m_mob[pend.src], m_mob[j]) < m_detectDbm)
                continue;
            bool sent = m_txBegin[j] >= 0 && (m_txEnd[j] < 0 || m_txEnd[j] >= start);
            RecordDrop(j, pend.src, pend.tx, !m_alive[j] ? kDead : sent ? kHalfDuplex : kBusy);
        }
        m_watch.erase(w);
    }

    void Seen(uint64_t uid, uint32_t me)
    {
        auto w = m_watch.find(uid);
        if (w != m_watch.end())
            w->second.seen[me] = 1;
    }

    // A reception of our frame `uid` failed at `me`: a drop row for a broadcast; for a unicast to
    // `me`, the reason kept until the MAC gives up (a later retry may still get through).
    void Lost(uint32_t me, uint64_t uid, int64_t reason)
    {
        Pending* pend = nullptr;
        auto u = m_unicast.find(uid);
        if (u != m_unicast.end())
            pend = &u->second;
        else
        {
            auto b = m_broadcastTx.find(uid);
            if (b == m_broadcastTx.end())
                return; // an ACK, ARP or routing frame: not one of ours
            pend = &b->second;
        }
        if (pend->src == int64_t(me) || (pend->dst >= 0 && pend->dst != int64_t(me)))
            return;
        if (m_loss->CalcRxPower(m_txPowerDbm, m_mob[pend->src], m_mob[me]) < m_detectDbm)
            return; // out of range: no reception to lose
        if (!m_alive[me])
            reason = kDead;
        if (pend->dst >= 0)
            pend->reason = reason;
        else if (!m_watch.count(uid) || !m_watch[uid].seen[me])
        {
            Seen(uid, me);
            RecordDrop(me, pend->src, pend->tx, reason);
        }
    }

    // The MAC gave a unicast up; unless its destination received it, one drop row says why.
    void GaveUp(const Pending& pend, int64_t reason)
    {
        if (pend.delivered)
            return;
        if (reason < 0) // retries exhausted: the last reason the destination lost it, or why it never heard it
        {
            bool heard = m_loss->CalcRxPower(m_txPowerDbm, m_mob[pend.src], m_mob[pend.dst]) >= m_detectDbm;
            reason = !m_alive[pend.dst] ? kDead : pend.reason >= 0 ? pend.reason : heard ? kRetries : kOutOfRange;
        }
        RecordDrop(pend.dst, pend.src, pend.tx, reason);
    }

    void RecordDrop(int64_t dst, int64_t src, int64_t tx, int64_t reason)
    {
        int64_t row[kXInt] = {Simulator::Now().GetNanoSeconds(), dst, src, tx, reason};
        xInt.insert(xInt.end(), row, row + kXInt);
    }

    uint32_t m_n;
    int64_t m_header[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    NodeContainer m_nodes;
    NetDeviceContainer m_devices;
    std::vector<Ptr<ConstantVelocityMobilityModel>> m_mob;
    // every helper lives as long as the run (some helpers dispose of what they made when destroyed)
    MobilityHelper m_mobility;
    WifiHelper m_wifiHelper;
    WifiMacHelper m_mac;
    YansWifiPhyHelper m_phy;
    Ptr<YansWifiChannel> m_channel;
    Ptr<PropagationLossModel> m_loss;
    Ptr<ObstacleLossModel> m_obstacles;
    bool m_wifi = false;
    // IPv4 routing baselines
    bool m_ip = false;
    InternetStackHelper m_internet;
    Ipv4InterfaceContainer m_ifaces;
    std::vector<Ptr<Socket>> m_sockets;
    std::unordered_map<uint32_t, int64_t> m_ipIndex;
    uint16_t m_port = 0;
    int64_t m_ctlPackets = 0;
    int64_t m_ctlBytes = 0;
    std::vector<int64_t> m_ipEvents;
    static constexpr int kFirstTtl = 65;  // a datagram leaves with TTL 64; hops = 65 - the TTL it arrives with
    std::vector<int64_t> m_macRx, m_macTx, m_phyTx;
    std::vector<uint8_t> m_listen, m_alive;
    std::vector<uint8_t> m_passive = std::vector<uint8_t>(256, 0);
    std::vector<uint64_t> m_snUid;
    bool m_knowPeers = false;
    std::vector<Ptr<WifiMacQueue>> m_txQueues;
    uint64_t m_macDrops = 0;  // frames the 802.11 MACs dropped with a trace
    std::vector<double> m_snSignal, m_snNoise;
    std::unordered_map<uint64_t, Pending> m_unicast;
    std::unordered_map<uint64_t, Pending> m_broadcastTx;
    double m_detectDbm = -1e9; // the weakest frame a receiver detects: nodes below it are out of range
    std::unordered_map<uint64_t, int64_t> m_addrIndex;
    int64_t m_nextTx = 0;
    EventId m_stopEvent;
    // 802.15.4
    double m_lrNoiseDbm = 0.0; // 802.15.4: the noise power over the channel, for the SNR reported
    double m_friisHz = 0.0;
    // created only for 802.15.4 and kept for the whole run: its destructor disposes of the channel
    std::unique_ptr<LrWpanHelper> m_lrwpan;
    Ptr<SingleModelSpectrumChannel> m_spectrum;
    std::vector<Ptr<lrwpan::LrWpanMac>> m_macs;
    std::vector<std::vector<Pending>> m_handles;
    std::vector<std::vector<int64_t>> m_broadcastHandles;
    struct Watch
    {
        int64_t start;
        std::vector<uint8_t> seen;
    };
    std::unordered_map<uint64_t, Watch> m_watch; // 802.15.4 broadcasts in the air: who has an outcome
    std::vector<int64_t> m_txBegin, m_txEnd;
    std::vector<uint8_t> m_nextHandle;
    double m_txPowerDbm = 0.0;
};

} // namespace cosim_ns3
